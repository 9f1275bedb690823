"""Gemini context caching (App(context_cache_config=...)) against the fake Gemini server."""

from __future__ import annotations

import asyncio
import datetime
import logging
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from google.genai import errors, types

from adk_runtime.agents import LlmAgent
from adk_runtime.agents.context_cache_config import ContextCacheConfig
from adk_runtime.apps import App
from adk_runtime.models import Gemini
from adk_runtime.models.cache_metadata import CacheMetadata
from adk_runtime.models.gemini_context_cache_manager import GeminiContextCacheManager
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.platform import time as platform_time
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from tests.llm.fake_gemini import FakeGemini, error_body, parts_body, serving
from tests.llm.helpers import APP, USER, send, stored, texts
from tests.llm.test_gemini import FAST_RETRY

# About 3,000 tokens at four characters a token: above Gemini 2.5's 2,048-token minimum.
INSTRUCTION = "You answer questions about the shop. " * 330


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGemini]:
    async with serving(monkeypatch) as server:
        yield server


@pytest.fixture
def clock() -> Iterator[list[float]]:
    """The runtime's clock, moved by the test: ``clock[0]`` seconds are added to real time."""
    offset = [0.0]
    platform_time.set_time_provider(lambda: time.time() + offset[0])
    yield offset
    platform_time.reset_time_provider()


def reply(text: str, prompt_tokens: int = 5000) -> tuple[int, dict[str, Any]]:
    body = parts_body([{"text": text}])
    body["usageMetadata"] = {"promptTokenCount": prompt_tokens, "totalTokenCount": prompt_tokens}
    return 200, body


def lookup(item: str) -> dict[str, Any]:
    """Look an item up in the shop's stock."""
    return {"item": item, "count": 3}


def runner(
    fake: FakeGemini, service: BaseSessionService, config: ContextCacheConfig | None
) -> tuple[Runner, LlmAgent]:
    model = Gemini(model="gemini-2.5-flash", base_url=fake.base_url, retry_options=FAST_RETRY)
    fake.clients.append(model)
    agent = LlmAgent(name="clerk", model=model, instruction=INSTRUCTION, tools=[lookup])
    app = App(name=APP, root_agent=agent, context_cache_config=config)
    return Runner(app=app, session_service=service, auto_create_session=True), agent


def generate(fake: FakeGemini, index: int) -> dict[str, Any]:
    return fake.requests[index][1]


def creates(fake: FakeGemini) -> list[dict[str, Any]]:
    return [body or {} for _, body in fake.cache_calls_of("POST")]


def deletes(fake: FakeGemini) -> list[str]:
    return [path.rsplit("/", 1)[-1] for path, _ in fake.cache_calls_of("DELETE")]


async def turns(run: Runner, fake: FakeGemini, *messages: str) -> None:
    for message in messages:
        fake.replies.append(reply(f"answer to {message}"))
        assert texts(await send(run, message)) == [f"answer to {message}"]


async def test_a_cache_is_made_once_and_reused_by_later_requests(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    run, _ = runner(fake, session_service, ContextCacheConfig())
    await turns(run, fake, "first")
    assert creates(fake) == []  # the first request of a session only fingerprints
    assert "cachedContent" not in generate(fake, 0)

    # second invocation: a tool call, so two model requests in one invocation
    fake.replies.append(
        (200, parts_body([{"functionCall": {"name": "lookup", "args": {"item": "pen"}}}]))
    )
    fake.replies.append(reply("3 pens."))
    assert texts(await send(run, "pens?")) == ["3 pens."]
    [create] = creates(fake)
    assert create["model"] == "models/gemini-2.5-flash"
    assert create["ttl"] == "1800s"
    assert create["systemInstruction"]["parts"][0]["text"].startswith("You answer questions")
    assert create["tools"][0]["functionDeclarations"][0]["name"] == "lookup"
    assert [c["parts"][0]["text"] for c in create["contents"]] == ["first", "answer to first"]
    for index in (1, 2):  # both requests of the invocation use the cache and omit its parts
        body = generate(fake, index)
        assert body["cachedContent"] == "cachedContents/cache-1"
        assert not {"systemInstruction", "tools", "toolConfig"} & set(body)
    assert [c["parts"][0].get("text") for c in generate(fake, 1)["contents"]] == ["pens?"]
    assert len(generate(fake, 2)["contents"]) == 3  # the question, the call, its answer

    await turns(run, fake, "third")
    assert len(creates(fake)) == 1  # reused, not made again
    assert generate(fake, 3)["cachedContent"] == "cachedContents/cache-1"
    assert generate(fake, 3)["contents"][0]["parts"][0]["text"] == "pens?"
    last = (await stored(run)).events[-1].cache_metadata
    assert last is not None
    assert (last.cache_name, last.invocations_used, last.contents_count) == (
        "cachedContents/cache-1",
        2,
        2,
    )
    assert deletes(fake) == []


async def test_no_cache_below_min_tokens_and_one_once_past_it(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    run, _ = runner(fake, session_service, ContextCacheConfig(min_tokens=8000))
    await turns(run, fake, "one", "two")  # the fake reports 5,000 prompt tokens
    assert creates(fake) == []
    assert all("cachedContent" not in body for _, body in fake.requests)
    fake.replies.append(reply("big", prompt_tokens=9000))
    await send(run, "three")
    assert creates(fake) == []  # the previous request (two) still had 5,000
    await turns(run, fake, "four")
    assert len(creates(fake)) == 1
    assert generate(fake, 3)["cachedContent"] == "cachedContents/cache-1"


async def test_without_the_config_nothing_is_cached(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    run, _ = runner(fake, session_service, None)
    await turns(run, fake, "one", "two", "three")
    assert fake.cache_calls == []
    assert all("systemInstruction" in body for _, body in fake.requests)
    assert all(event.cache_metadata is None for event in (await stored(run)).events)


async def test_a_changed_prefix_drops_the_cache_and_makes_a_new_one(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    run, agent = runner(fake, session_service, ContextCacheConfig())
    await turns(run, fake, "one", "two")
    agent.instruction = "You answer questions about the bakery. " * 330
    await turns(run, fake, "three")
    assert deletes(fake) == ["cache-1"]
    assert len(creates(fake)) == 1  # the new prefix is only fingerprinted
    assert "cachedContent" not in generate(fake, 2)
    assert "bakery" in generate(fake, 2)["systemInstruction"]["parts"][0]["text"]
    await turns(run, fake, "four")
    assert len(creates(fake)) == 2
    assert "bakery" in creates(fake)[1]["systemInstruction"]["parts"][0]["text"]
    assert generate(fake, 3)["cachedContent"] == "cachedContents/cache-2"


async def test_a_cache_is_replaced_after_cache_intervals_invocations(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    run, _ = runner(fake, session_service, ContextCacheConfig(cache_intervals=2))
    await turns(run, fake, "one", "two", "three")
    assert len(creates(fake)) == 1  # made in two, used again in three
    await turns(run, fake, "four")
    assert deletes(fake) == ["cache-1"]
    assert len(creates(fake)) == 2
    assert len(creates(fake)[1]["contents"]) == 6  # the new one holds the longer prefix
    assert generate(fake, 3)["cachedContent"] == "cachedContents/cache-2"
    assert [c["parts"][0]["text"] for c in generate(fake, 3)["contents"]] == ["four"]


async def test_an_expired_cache_is_replaced(
    fake: FakeGemini, session_service: BaseSessionService, clock: list[float]
) -> None:
    run, _ = runner(fake, session_service, ContextCacheConfig(ttl_seconds=600))
    await turns(run, fake, "one", "two", "three")
    assert len(creates(fake)) == 1
    clock[0] = 500.0  # 100 s left: still used
    await turns(run, fake, "four")
    assert (len(creates(fake)), deletes(fake)) == (1, [])
    assert generate(fake, 3)["cachedContent"] == "cachedContents/cache-1"
    clock[0] = 590.0  # 10 s left, inside the 30 s margin: replaced before it runs out
    await turns(run, fake, "five")
    assert deletes(fake) == ["cache-1"]
    assert len(creates(fake)) == 2
    assert generate(fake, 4)["cachedContent"] == "cachedContents/cache-2"


async def test_a_new_runner_reuses_the_stored_cache(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    config = ContextCacheConfig()
    first, _ = runner(fake, session_service, config)
    await turns(first, fake, "one", "two")
    await first.close()
    # another replica, or this one after a restart: a new model, client and Runner
    second, _ = runner(fake, session_service, config)
    await turns(second, fake, "three")
    assert len(creates(fake)) == 1
    assert deletes(fake) == []
    assert generate(fake, 2)["cachedContent"] == "cachedContents/cache-1"
    session = await session_service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert session is not None
    metadata = session.events[-1].cache_metadata
    assert isinstance(metadata, CacheMetadata)
    assert metadata.invocations_used == 2


async def test_a_failed_create_leaves_the_turn_uncached_and_working(
    fake: FakeGemini, session_service: BaseSessionService, caplog: pytest.LogCaptureFixture
) -> None:
    run, _ = runner(fake, session_service, ContextCacheConfig())
    await turns(run, fake, "one")
    secret = "prefix too small: SECRET-PAYLOAD"
    fake.cache_failures.append((400, error_body(400, "INVALID_ARGUMENT", secret)))
    with caplog.at_level(logging.DEBUG):
        await turns(run, fake, "two")
    assert len(creates(fake)) == 1
    body = generate(fake, 1)
    assert "cachedContent" not in body
    assert "systemInstruction" in body
    assert len(body["contents"]) == 3
    assert "Could not create a context cache (ClientError 400)" in caplog.text
    assert "SECRET-PAYLOAD" not in caplog.text
    await turns(run, fake, "three")  # the next invocation tries again
    assert len(creates(fake)) == 2
    assert generate(fake, 2)["cachedContent"] == "cachedContents/cache-1"  # the first made


async def test_a_cache_the_server_lost_is_answered_uncached_then_made_again(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    run, _ = runner(fake, session_service, ContextCacheConfig())
    await turns(run, fake, "one", "two")
    fake.caches.clear()  # deleted or expired on the server
    await turns(run, fake, "three")
    refused, retried = generate(fake, 2), generate(fake, 3)
    assert refused["cachedContent"] == "cachedContents/cache-1"
    assert "cachedContent" not in retried
    assert "systemInstruction" in retried
    assert len(retried["contents"]) == 5
    await turns(run, fake, "four")
    assert len(creates(fake)) == 2
    assert generate(fake, 4)["cachedContent"] == "cachedContents/cache-2"


async def test_streaming_stores_the_metadata_on_the_aggregated_event(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    from adk_runtime.agents import RunConfig, StreamingMode

    run, _ = runner(fake, session_service, ContextCacheConfig())
    await turns(run, fake, "one")
    streamed = RunConfig(streaming_mode=StreamingMode.SSE)
    fake.replies.append(("sse", [reply("Hel")[1], reply("lo")[1]]))
    events = await send(run, "two", run_config=streamed)
    assert [bool(e.partial) for e in events] == [True, True, False]
    assert [e.cache_metadata is None for e in events] == [True, True, False]
    assert fake.requests[1][0].endswith(":streamGenerateContent")
    assert fake.requests[1][1]["cachedContent"] == "cachedContents/cache-1"


async def test_the_cache_expiry_is_the_one_the_server_reports(
    fake: FakeGemini, session_service: BaseSessionService, clock: list[float]
) -> None:
    clock[0] = -100.0  # the runtime's clock is behind the server's
    run, _ = runner(fake, session_service, ContextCacheConfig(ttl_seconds=600))
    await turns(run, fake, "one", "two")
    metadata = (await stored(run)).events[-1].cache_metadata
    assert metadata is not None
    assert metadata.expire_time is not None
    reported = fake.caches["cachedContents/cache-1"]["expireTime"]
    assert metadata.expire_time == datetime.datetime.fromisoformat(reported).timestamp()
    assert metadata.created_at is not None
    assert metadata.expire_time - metadata.created_at == pytest.approx(700.0, abs=5.0)


async def manager_of(fake: FakeGemini) -> GeminiContextCacheManager:
    model = Gemini(model="gemini-2.5-flash", base_url=fake.base_url, retry_options=FAST_RETRY)
    fake.clients.append(model)
    client = await asyncio.to_thread(lambda: model.api_client)  # reads certificates
    return GeminiContextCacheManager(client)


def cache_request(
    contents: list[types.Content], metadata: CacheMetadata | None = None
) -> LlmRequest:
    return LlmRequest(
        model="gemini-2.5-flash",
        contents=list(contents),
        config=types.GenerateContentConfig(system_instruction=INSTRUCTION),
        cache_config=ContextCacheConfig(),
        cache_metadata=metadata,
        cacheable_contents_token_count=5000,
    )


QUESTION = types.UserContent("How many pens?")
ANSWER = types.ModelContent("Three pens.")
FOLLOW_UP = types.UserContent("And pencils?")
SECOND_ANSWER = types.ModelContent("Four pencils.")


async def test_a_request_ending_in_a_model_content_keeps_that_content_out_of_the_cache(
    fake: FakeGemini,
) -> None:
    manager = await manager_of(fake)
    contents = [QUESTION, ANSWER, FOLLOW_UP, SECOND_ANSWER]
    # google-adk's step: the prefix ends after the last content, which is not a user's ...
    assert manager._find_count_of_contents_to_cache(contents) == 4
    # ... but a cache never takes the content the request must still send
    first = await manager.handle_context_caching(cache_request(contents))
    assert first is not None
    assert first.contents_count == 3
    request = cache_request(contents, first)
    made = await manager.handle_context_caching(request)
    assert made is not None
    assert made.cache_name == "cachedContents/cache-1"
    assert made.contents_count == 3
    assert len(creates(fake)[0]["contents"]) == 3
    assert request.contents == [SECOND_ANSWER]
    assert request.config.cached_content == "cachedContents/cache-1"
    assert request.config.system_instruction is None


async def test_a_valid_cache_is_reused_as_a_copy_of_its_metadata(fake: FakeGemini) -> None:
    manager = await manager_of(fake)
    contents = [QUESTION, ANSWER, FOLLOW_UP]
    first = await manager.handle_context_caching(cache_request(contents))
    made = await manager.handle_context_caching(cache_request(contents, first))
    assert made is not None
    assert made.cache_name is not None
    request = cache_request([*contents, SECOND_ANSWER, types.UserContent("Thanks")], made)
    assert await manager._is_cache_valid(request)
    reused = await manager.handle_context_caching(request)
    assert reused == made
    assert reused is not made
    assert request.contents == [FOLLOW_UP, SECOND_ANSWER, types.UserContent("Thanks")]
    assert len(creates(fake)) == 1
    assert deletes(fake) == []


async def test_a_cache_holding_every_content_is_replaced_rather_than_repeated(
    fake: FakeGemini,
) -> None:
    manager = await manager_of(fake)
    contents = [QUESTION, ANSWER, FOLLOW_UP]
    first = await manager.handle_context_caching(cache_request(contents))
    made = await manager.handle_context_caching(cache_request(contents, first))
    assert made is not None
    assert made.contents_count == 2
    # a request holding only the cached prefix: using the cache would send ANSWER twice
    request = cache_request([QUESTION, ANSWER], made)
    replaced = await manager.handle_context_caching(request)
    assert deletes(fake) == ["cache-1"]
    assert replaced is not None
    assert replaced.cache_name == "cachedContents/cache-2"
    assert replaced.contents_count == 1
    assert request.contents == [ANSWER]


async def test_a_failed_create_is_none_from_the_guarded_step_and_raises_from_the_call(
    fake: FakeGemini,
) -> None:
    manager = await manager_of(fake)
    request = cache_request([QUESTION, ANSWER, FOLLOW_UP])
    fake.cache_failures.append((400, error_body(400, "INVALID_ARGUMENT", "too small")))
    assert await manager._create_new_cache_with_contents(request, 2) is None
    fake.cache_failures.append((400, error_body(400, "INVALID_ARGUMENT", "too small")))
    with pytest.raises(errors.ClientError):
        await manager._create_gemini_cache(request, 2)
    made = await manager._create_gemini_cache(request, 2)
    assert made.cache_name == "cachedContents/cache-1"  # the refused ones got no name
    assert made.fingerprint == manager._generate_cache_fingerprint(request, 2)
    assert len(creates(fake)) == 3


async def test_a_fingerprint_covers_the_endpoint_the_models_client_was_built_for(
    fake: FakeGemini,
) -> None:
    request = cache_request([QUESTION, ANSWER, FOLLOW_UP])
    fingerprints: list[str] = []
    built = None
    for base_url in (fake.base_url, f"{fake.base_url}elsewhere/"):
        model = Gemini(model="gemini-2.5-flash", base_url=base_url, retry_options=FAST_RETRY)
        fake.clients.append(model)
        built = await asyncio.to_thread(lambda model=model: model.api_client)
        manager = GeminiContextCacheManager(built, endpoint=model._endpoint(built))
        fingerprints.append(manager._generate_cache_fingerprint(request, 2))
    assert fingerprints[0] != fingerprints[1]  # one server's cache is not taken for another's
    assert built is not None
    # a client of the caller's: google-genai does not say where it points, only its backend
    assert Gemini(model="gemini-2.5-flash", client=built)._endpoint(built) is None
    assert GeminiContextCacheManager(built)._cache_scope() == {"vertexai": False}
