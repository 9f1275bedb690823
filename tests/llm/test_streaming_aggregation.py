"""Streamed Gemini replies folded by the one aggregator, on the fake Gemini server."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, RunConfig, StreamingMode
from adk_runtime.features import FeatureName
from adk_runtime.features._feature_registry import temporary_feature_override
from adk_runtime.models import Gemini, LlmRequest, LlmResponse
from adk_runtime.models._json_path import MAX_INDEX, parse_path, set_path
from adk_runtime.sessions import BaseSessionService
from adk_runtime.utils.streaming_utils import StreamingResponseAggregator
from tests.llm.fake_gemini import FakeGemini, serving
from tests.llm.helpers import send, start, stored

FAST_RETRY = types.HttpRetryOptions(attempts=1)
SIGNATURE = b"opaque-signature"


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGemini]:
    async with serving(monkeypatch) as server:
        yield server


def gemini(fake: FakeGemini) -> Gemini:
    model = Gemini(model="gemini-2.5-flash", base_url=fake.base_url, retry_options=FAST_RETRY)
    fake.clients.append(model)
    return model


def chunk(*parts: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": list(parts)}}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-fake", **extra}


def streamed_call(name: str | None, *pieces: dict[str, Any], more: bool) -> dict[str, Any]:
    call: dict[str, Any] = {"partialArgs": list(pieces), "willContinue": more}
    if name is not None:
        call["name"] = name
    return {"functionCall": call}


def request() -> LlmRequest:
    req = LlmRequest(model="gemini-2.5-flash")
    req.contents = [types.Content(role="user", parts=[types.Part(text="hi")])]
    return req


async def stream(model: Gemini) -> list[LlmResponse]:
    return [r async for r in model.generate_content_async(request(), stream=True)]


USAGE = {"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7}


async def test_streamed_arguments_are_put_together(fake: FakeGemini) -> None:
    fake.replies.append(
        (
            "sse",
            [
                chunk({"text": "Checking "}, usageMetadata=USAGE),
                chunk({"text": "the weather."}),
                chunk(
                    streamed_call("weather", {"jsonPath": "$.city", "stringValue": "Os"}, more=True)
                ),
                chunk(streamed_call(None, {"jsonPath": "$.city", "stringValue": "lo"}, more=True)),
                chunk(
                    streamed_call(
                        None,
                        {"jsonPath": "$.days", "numberValue": 3},
                        {"jsonPath": "$['when'].tomorrow", "boolValue": True},
                        more=False,
                    ),
                    finish="STOP",
                ),
            ],
        )
    )
    responses = await stream(gemini(fake))
    *partials, complete = responses
    assert [r.partial for r in partials] == [True] * 5
    assert complete.partial is False
    assert complete.turn_complete is None  # it asks for a call: the model's turn goes on
    assert complete.content is not None
    text, call_part = complete.content.parts or []
    assert text.text == "Checking the weather."
    call = call_part.function_call
    assert call is not None
    assert call.name == "weather"
    assert call.args == {"city": "Oslo", "days": 3, "when": {"tomorrow": True}}
    # a runtime id, already shown on the partial chunks of the call
    assert call.id is not None
    assert call.id.startswith("adk-")
    call_parts = [p for r in partials[2:] if r.content for p in r.content.parts or []]
    shown = {p.function_call.id for p in call_parts if p.function_call}
    assert shown == {call.id}
    # usage came on the first chunk only, and is kept
    assert complete.usage_metadata is not None
    assert complete.usage_metadata.total_token_count == 7
    assert complete.model_version == "gemini-fake"


async def test_parts_keep_their_order_and_signatures(fake: FakeGemini) -> None:
    signature = base64.b64encode(SIGNATURE).decode()
    call = {"functionCall": {"name": "look", "args": {"q": "a"}, "id": "model-1"}}
    fake.replies.append(
        (
            "sse",
            [
                chunk({"text": "Think ", "thought": True, "thoughtSignature": signature}),
                chunk({"text": "hard.", "thought": True}),
                chunk({"text": "Answer"}),
                chunk(call),
                chunk({"text": "More thought", "thought": True}),
                chunk(call, finish="STOP"),  # the model repeats a call it gave an id
            ],
        )
    )
    complete = (await stream(gemini(fake)))[-1]
    assert complete.content is not None
    parts = complete.content.parts or []
    assert [(p.text, bool(p.thought)) for p in parts if p.function_call is None] == [
        ("Think hard.", True),
        ("Answer", False),
        ("More thought", True),
    ]
    assert parts[0].thought_signature == SIGNATURE
    assert [i for i, p in enumerate(parts) if p.function_call] == [2]
    assert parts[2].function_call is not None
    assert parts[2].function_call.id == "model-1"


async def test_a_finish_reason_other_than_stop_is_an_error(fake: FakeGemini) -> None:
    fake.replies.append(("sse", [chunk({"text": "Once upon"}), chunk(finish="MAX_TOKENS")]))
    complete = (await stream(gemini(fake)))[-1]
    assert complete.error_code == "MAX_TOKENS"
    assert complete.content is not None
    assert complete.content.parts[0].text == "Once upon"  # type: ignore[index]


async def test_switched_off_only_text_is_gathered(fake: FakeGemini) -> None:
    call = {"functionCall": {"name": "look", "args": {"q": "a"}}}
    fake.replies.append(("sse", [chunk({"text": "a"}), chunk({"text": "b"}), chunk(call)]))
    with temporary_feature_override(FeatureName.PROGRESSIVE_SSE_STREAMING, False):
        responses = await stream(gemini(fake))
    shapes = [
        (bool(r.partial), [p.text or (p.function_call and p.function_call.name) for p in parts])
        for r in responses
        for parts in [(r.content.parts or []) if r.content else []]
    ]
    assert shapes == [
        (True, ["a"]),
        (True, ["b"]),
        (False, ["ab"]),  # the gathered text, before the call
        (False, ["look"]),  # the call itself, as a complete response
        (False, []),  # the close: nothing gathered since
    ]


def get_weather(city: str, days: int) -> dict[str, Any]:
    """The weather of a city for some days."""
    calls.append((city, days))
    return {"city": city, "days": days, "sky": "clear"}


calls: list[tuple[str, int]] = []


async def test_an_agent_runs_a_streamed_call_once(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    calls.clear()
    fake.replies.append(
        (
            "sse",
            [
                chunk(
                    streamed_call(
                        "get_weather", {"jsonPath": "$.city", "stringValue": "Os"}, more=True
                    )
                ),
                chunk(
                    streamed_call(
                        None,
                        {"jsonPath": "$.city", "stringValue": "lo"},
                        {"jsonPath": "$.days", "numberValue": 2},
                        more=False,
                    ),
                    finish="STOP",
                ),
            ],
        )
    )
    fake.replies.append(("sse", [chunk({"text": "Clear."}, finish="STOP")]))
    agent = LlmAgent(name="weather", model=gemini(fake), tools=[get_weather])
    runner = await start(agent, session_service)
    events = await send(runner, "weather?", run_config=RunConfig(streaming_mode=StreamingMode.SSE))
    assert calls == [("Oslo", 2)]
    complete = [e for e in events if not e.partial]
    assert [bool(e.get_function_calls()) for e in complete] == [True, False, False]
    call_id = complete[0].get_function_calls()[0].id
    assert complete[1].get_function_responses()[0].id == call_id
    stored_events = (await stored(runner)).events
    assert len(stored_events) == 4  # the user message and the three complete events
    assert not any(e.partial for e in stored_events)
    # each partial chunk carries the id of the complete event that follows it
    partials = [e for e in events if e.partial]
    assert partials
    following = {e.id for e in complete}
    assert all(e.id in following for e in partials)
    assert partials[-1].id == complete[-1].id
    # the model is sent the call with its assembled arguments (and not the runtime's id)
    sent_call = fake.requests[1][1]["contents"][1]["parts"][0]["functionCall"]
    assert sent_call == {"name": "get_weather", "args": {"city": "Oslo", "days": 2}}


async def test_the_aggregator_on_its_own() -> None:
    aggregator = StreamingResponseAggregator()
    assert aggregator.close() is None  # nothing came
    pieces = [
        types.FunctionCall(
            name="write",
            id="w1",
            partial_args=[types.PartialArg(json_path="$.doc", string_value="Once ")],
            will_continue=True,
        ),
        types.FunctionCall(
            partial_args=[types.PartialArg(json_path="$.doc", string_value="upon")],
            will_continue=True,
        ),
        types.FunctionCall(),  # Vertex leaves will_continue out on the closing chunk
    ]
    for piece in pieces:
        response = types.GenerateContentResponse(
            candidates=[
                types.Candidate(
                    content=types.Content(role="model", parts=[types.Part(function_call=piece)])
                )
            ]
        )
        out = [r async for r in aggregator.process_response(response)]
        assert [r.partial for r in out] == [True]
    complete = aggregator.close()
    assert complete is not None
    assert complete.content is not None
    [part] = complete.content.parts or []
    assert part.function_call is not None
    assert (part.function_call.id, part.function_call.args) == ("w1", {"doc": "Once upon"})


def test_json_paths() -> None:
    assert parse_path("$.a['b c'][2].d") == ["a", "b c", 2, "d"]
    assert parse_path('$["q\\"uote"]') == ['q"uote']
    root: dict[str, Any] = {}
    set_path(root, parse_path("$.list[1].x"), 5)
    assert root == {"list": [None, {"x": 5}]}
    set_path(root, parse_path(f"$.big[{MAX_INDEX + 1}]"), 1)  # too far: nothing written
    set_path(root, parse_path("$.list.x"), 1)  # a key into a list: nothing written
    assert root == {"list": [None, {"x": 5}], "big": []}
