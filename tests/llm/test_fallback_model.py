"""FallbackModel: Gemini models on the fake Gemini server, and models that raise."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

import anthropic
import pytest
from google.genai import types
from pydantic import ValidationError

from adk_runtime.agents import LlmAgent
from adk_runtime.models import FallbackModel, Gemini, LlmRequest, LlmResponse
from adk_runtime.models.anthropic_llm import AnthropicLlm
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel
from tests.llm.fake_gemini import FakeGemini, error_body, parts_body, serving, text_body
from tests.llm.helpers import send, start, stored, texts
from tests.models.fake_apis import running
from tests.models.test_anthropic_llm import message as anthropic_message

NO_RETRY = types.HttpRetryOptions(attempts=1)


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGemini]:
    async with serving(monkeypatch) as server:
        yield server


def gemini(fake: FakeGemini, name: str) -> Gemini:
    model = Gemini(model=name, base_url=fake.base_url, retry_options=NO_RETRY)
    fake.clients.append(model)
    return model


def request(text: str = "hi") -> LlmRequest:
    return LlmRequest(
        model="primary", contents=[types.Content(role="user", parts=[types.Part(text=text)])]
    )


async def collect(model: FallbackModel, req: LlmRequest, **kwargs: Any) -> list[LlmResponse]:
    return [response async for response in model.generate_content_async(req, **kwargs)]


def called_models(fake: FakeGemini) -> list[str]:
    return [path.rsplit("/", 1)[1].split(":")[0] for path, _ in fake.requests]


async def test_a_rate_limited_primary_hands_the_turn_to_the_backup(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    fake.replies += [
        (429, error_body(429, "RESOURCE_EXHAUSTED", "quota")),
        (200, text_body("From the backup.")),
    ]
    model = FallbackModel(models=[gemini(fake, "gemini-2.5-pro"), gemini(fake, "gemini-2.5-flash")])
    assert model.model == "gemini-2.5-pro"
    agent = LlmAgent(name="support", model=model, instruction="Help.")
    runner = await start(agent, session_service)
    events = await send(runner, "hello")
    assert texts(events) == ["From the backup."]
    assert events[-1].error_code is None
    assert called_models(fake) == ["gemini-2.5-pro", "gemini-2.5-flash"]
    first, second = (body for _, body in fake.requests)
    assert first == second  # the same request, whatever the first model did with its copy
    stored_events = (await stored(runner)).events
    assert [e.author for e in stored_events] == ["user", "support"]


def get_weather(city: str) -> dict[str, Any]:
    """Return the weather of a city."""
    return {"city": city, "sky": "clear"}


async def test_claude_takes_over_a_conversation_gemini_signed(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    # Gemini signs its thoughts and calls with binary signatures Claude can neither read
    # nor verify; the stored history keeps them.
    signature = base64.b64encode(b"\x12\xff\xfe\x80").decode()
    signed_call = {
        "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
        "thoughtSignature": signature,
    }
    thought = {"text": "Check the weather.", "thought": True, "thoughtSignature": signature}
    fake.replies += [
        (200, parts_body([thought, signed_call])),
        (200, text_body("Clear in Oslo.")),
        (429, error_body(429, "RESOURCE_EXHAUSTED", "quota")),
    ]
    async with running() as api:
        api.replies.append((200, anthropic_message([{"type": "text", "text": "Still clear."}])))
        client = await asyncio.to_thread(  # it reads certificates from disk
            anthropic.AsyncAnthropic, base_url=api.base_url, api_key="k", max_retries=0
        )
        api.clients.append(client)
        claude = AnthropicLlm(model="claude-sonnet-4-20250514", client=client)
        model = FallbackModel(models=[gemini(fake, "gemini-2.5-pro"), claude])
        agent = LlmAgent(name="weather", model=model, tools=[get_weather])
        runner = await start(agent, session_service)
        await send(runner, "Weather in Oslo?")
        events = await send(runner, "And now?")
        assert texts(events) == ["Still clear."]
        [sent] = api.requests
    roles_and_types = [
        (m["role"], [block["type"] for block in m["content"]]) for m in sent["messages"]
    ]
    assert roles_and_types == [
        ("user", ["text"]),
        ("assistant", ["tool_use"]),  # Gemini's thought is left out, its call kept
        ("user", ["tool_result"]),
        ("assistant", ["text"]),
        ("user", ["text"]),
    ]


async def test_gemini_3_takes_over_a_turn_claude_began(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    # Claude calls a tool, then is rate-limited; Gemini 3 answers the rest of the turn and
    # refuses a current-turn call without a signature, which Claude's call has not.
    fake.replies.append((200, text_body("Clear in Oslo.")))
    async with running() as api:
        tool_use = {"type": "tool_use", "id": "toolu_1", "name": "get_weather"}
        api.replies += [
            (200, anthropic_message([{**tool_use, "input": {"city": "Oslo"}}], "tool_use")),
            (429, {"type": "error", "error": {"type": "rate_limit_error", "message": "slow"}}),
        ]
        client = await asyncio.to_thread(
            anthropic.AsyncAnthropic, base_url=api.base_url, api_key="k", max_retries=0
        )
        api.clients.append(client)
        claude = AnthropicLlm(model="claude-sonnet-4-20250514", client=client)
        model = FallbackModel(models=[claude, gemini(fake, "gemini-3-pro-preview")])
        agent = LlmAgent(name="weather", model=model, tools=[get_weather])
        runner = await start(agent, session_service)
        events = await send(runner, "Weather in Oslo?")
    assert texts(events) == ["Clear in Oslo."]
    [(_, body)] = fake.requests
    call = body["contents"][1]["parts"][0]
    assert call["functionCall"]["name"] == "get_weather"
    assert base64.b64decode(call["thoughtSignature"]) == b"skip_thought_signature_validator"
    stored_call = (await stored(runner)).events[1].content.parts[0]  # type: ignore[union-attr,index]
    assert stored_call.thought_signature is None  # only the request to Gemini carries it


async def test_gemini_gets_no_thought_claude_signed(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    fake.replies += [
        (429, error_body(429, "RESOURCE_EXHAUSTED", "quota")),  # turn 1: Claude answers
        (200, text_body("Gemini again.")),  # turn 2
    ]
    async with running() as api:
        thinking = {"type": "thinking", "thinking": "Hm.", "signature": "EqQBCkgIARAB"}
        api.replies.append(
            (200, anthropic_message([thinking, {"type": "text", "text": "From Claude."}]))
        )
        client = await asyncio.to_thread(
            anthropic.AsyncAnthropic, base_url=api.base_url, api_key="k", max_retries=0
        )
        api.clients.append(client)
        claude = AnthropicLlm(model="claude-sonnet-4-20250514", client=client)
        model = FallbackModel(models=[gemini(fake, "gemini-2.5-pro"), claude])
        runner = await start(LlmAgent(name="helper", model=model), session_service)
        await send(runner, "Hello?")
        assert texts(await send(runner, "And?")) == ["Gemini again."]
    stored_reply = (await stored(runner)).events[1].content
    assert stored_reply is not None
    assert [(p.text, p.thought) for p in stored_reply.parts or []] == [
        ("Hm.", True),
        ("From Claude.", None),
    ]
    _, body = fake.requests[-1]
    assert body["contents"][1] == {"role": "model", "parts": [{"text": "From Claude."}]}


async def test_a_status_that_is_not_retriable_is_the_callers(fake: FakeGemini) -> None:
    fake.replies.append((400, error_body(400, "INVALID_ARGUMENT", "bad request")))
    model = FallbackModel(models=[gemini(fake, "gemini-2.5-pro"), gemini(fake, "gemini-2.5-flash")])
    [response] = await collect(model, request())
    assert response.error_code == "400"
    assert called_models(fake) == ["gemini-2.5-pro"]


async def test_when_every_model_fails_the_last_error_is_returned(fake: FakeGemini) -> None:
    fake.replies += [
        (503, error_body(503, "UNAVAILABLE", "overloaded")),
        (500, error_body(500, "INTERNAL", "broken")),
        (429, error_body(429, "RESOURCE_EXHAUSTED", "quota")),
    ]
    names = ["gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"]
    model = FallbackModel(models=[gemini(fake, name) for name in names])
    [response] = await collect(model, request())
    assert (response.error_code, response.error_message) == ("429", "quota")
    assert called_models(fake) == names


async def test_statuses_are_configurable(fake: FakeGemini) -> None:
    fake.replies += [
        (503, error_body(503, "UNAVAILABLE", "overloaded")),
        (200, text_body("unused")),
    ]
    model = FallbackModel(
        models=[gemini(fake, "gemini-2.5-pro"), gemini(fake, "gemini-2.5-flash")],
        retriable_status_codes=frozenset({429}),
    )
    [response] = await collect(model, request())
    assert response.error_code == "503"
    assert called_models(fake) == ["gemini-2.5-pro"]


async def test_a_failure_after_a_streamed_chunk_is_not_spliced_with_the_backup(
    fake: FakeGemini,
) -> None:
    class CutOff(Exception):
        status_code = 503

    async def half_a_reply(_: LlmRequest) -> AsyncGenerator[LlmResponse, None]:
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text="Hel")]))
        raise CutOff

    primary = _Model(model="primary", reply=half_a_reply)
    model = FallbackModel(models=[primary, gemini(fake, "gemini-2.5-flash")])
    seen: list[LlmResponse] = []

    async def consume() -> None:
        async for response in model.generate_content_async(request(), stream=True):
            seen.append(response)

    with pytest.raises(CutOff):
        await consume()
    assert len(seen) == 1
    assert fake.requests == []


async def test_raised_errors_fall_over_by_their_status_and_others_propagate(
    fake: FakeGemini,
) -> None:
    class RateLimited(Exception):
        status_code = 429

    class Refused(Exception):
        """No status: the request never reached a server."""

    async def raising(error: Exception) -> AsyncGenerator[LlmResponse, None]:
        raise error
        yield  # pragma: no cover - makes this a generator

    fake.replies.append((200, text_body("backup")))
    backup = gemini(fake, "gemini-2.5-flash")
    limited = _Model(model="a", reply=lambda _: raising(RateLimited()))
    [response] = await collect(FallbackModel(models=[limited, backup]), request())
    assert response.content is not None
    assert response.content.parts == [types.Part(text="backup")]

    refused = _Model(model="b", reply=lambda _: raising(Refused()))
    with pytest.raises(Refused):
        await collect(FallbackModel(models=[refused, backup]), request())
    assert len(fake.requests) == 1


async def test_each_attempt_gets_its_own_copy_of_the_request() -> None:
    seen: list[tuple[str | None, int]] = []

    async def editing(req: LlmRequest) -> AsyncGenerator[LlmResponse, None]:
        seen.append((req.model, len(req.contents)))
        req.contents.append(types.Content(role="user", parts=[types.Part(text="edit")]))
        req.config.temperature = 2.0
        yield LlmResponse(error_code="503", error_message="overloaded")

    backup = ScriptedModel(replies=["fine"])
    model = FallbackModel(models=[_Model(model="first", reply=editing), backup])
    original = request()
    [response] = await collect(model, original)
    assert response.content is not None
    assert seen == [("first", 1)]
    [sent] = backup.requests
    assert sent.model == backup.model
    assert len(sent.contents) == 1
    assert sent.config.temperature is None
    assert original == request()


async def test_names_are_resolved_through_the_registry(fake: FakeGemini) -> None:
    model = FallbackModel(models=["gemini-2.5-pro", "gemma-3-27b-it"])
    assert model.model == "gemini-2.5-pro"
    built = [model._delegate(entry) for entry in model.models]
    assert [type(b).__name__ for b in built] == ["Gemini", "Gemma"]
    assert model._delegate("gemini-2.5-pro") is built[0]  # built once
    await model.aclose()
    with pytest.raises(ValidationError, match="comes from the first"):
        FallbackModel(models=["gemini-2.5-pro"], model="gemini-2.5-flash")
    with pytest.raises(ValidationError):
        FallbackModel(models=[])


class _Model(ScriptedModel):
    """A model whose every call runs ``reply``."""

    reply: Any = None

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        async for response in self.reply(llm_request):
            yield response
