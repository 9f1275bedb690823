"""Gemini on the real google-genai client against a fake Gemini server (no network)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import google.genai as genai
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, RunConfig, StreamingMode
from adk_runtime.errors import ConfigurationError, ModelNotFoundError
from adk_runtime.models import Gemini, LLMRegistry, LlmRequest, LlmResponse
from adk_runtime.sessions import BaseSessionService
from tests.llm.fake_gemini import FakeGemini, error_body, parts_body, serving, text_body
from tests.llm.helpers import send, start, stored, texts

FAST_RETRY = types.HttpRetryOptions(attempts=3, initial_delay=0.01, max_delay=0.02)


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGemini]:
    async with serving(monkeypatch) as server:
        yield server


def gemini(fake: FakeGemini) -> Gemini:
    model = Gemini(model="gemini-2.5-flash", base_url=fake.base_url, retry_options=FAST_RETRY)
    fake.clients.append(model)
    return model


def request(text: str) -> LlmRequest:
    req = LlmRequest(model="gemini-2.5-flash")
    req.contents = [types.Content(role="user", parts=[types.Part(text=text)])]
    req.append_instructions(["Be brief."])
    return req


async def collect(model: Gemini, req: LlmRequest, *, stream: bool = False) -> list[LlmResponse]:
    return [r async for r in model.generate_content_async(req, stream=stream)]


async def test_plain_text(fake: FakeGemini) -> None:
    fake.replies.append((200, text_body("Hello there")))
    [response] = await collect(gemini(fake), request("hi"))
    assert response.content is not None
    assert response.content.parts[0].text == "Hello there"  # type: ignore[index]
    assert response.usage_metadata is not None
    assert response.usage_metadata.total_token_count == 5
    path, body = fake.requests[0]
    # google-genai 2.x calls v1beta, 3.x v1
    assert path in {f"/{v}/models/gemini-2.5-flash:generateContent" for v in ("v1beta", "v1")}
    assert body["contents"] == [{"role": "user", "parts": [{"text": "hi"}]}]
    assert body["systemInstruction"]["parts"][0]["text"] == "Be brief."


async def test_streamed_text(fake: FakeGemini) -> None:
    chunks = [text_body("Hel"), text_body("lo "), text_body("world")]
    fake.replies.append(("sse", chunks))
    responses = await collect(gemini(fake), request("hi"), stream=True)
    assert [r.partial for r in responses] == [True, True, True, False]
    assert [r.content.parts[0].text for r in responses] == ["Hel", "lo ", "world", "Hello world"]  # type: ignore[union-attr,index]
    assert fake.requests[0][0].endswith(":streamGenerateContent")


async def test_http_error_becomes_error_response(fake: FakeGemini) -> None:
    fake.replies.append((400, error_body(400, "INVALID_ARGUMENT", "bad request")))
    [response] = await collect(gemini(fake), request("hi"))
    assert response.error_code == "400"
    assert response.error_message == "bad request"
    assert len(fake.requests) == 1  # not retryable


async def test_retry_on_503(fake: FakeGemini) -> None:
    fake.replies.append((503, error_body(503, "UNAVAILABLE", "overloaded")))
    fake.replies.append((200, text_body("made it")))
    [response] = await collect(gemini(fake), request("hi"))
    assert response.content is not None
    assert response.content.parts[0].text == "made it"  # type: ignore[index]
    assert len(fake.requests) == 2


async def test_retries_exhausted(fake: FakeGemini) -> None:
    for _ in range(3):
        fake.replies.append((429, error_body(429, "RESOURCE_EXHAUSTED", "quota")))
    [response] = await collect(gemini(fake), request("hi"))
    assert (response.error_code, response.error_message) == ("429", "quota")
    assert len(fake.requests) == 3


def test_registry_resolves_model_names() -> None:
    assert LLMRegistry.resolve("gemini-2.5-flash") is Gemini
    assert isinstance(LLMRegistry.new_llm("gemini-2.0-pro"), Gemini)
    with pytest.raises(ConfigurationError, match="No model class"):
        LLMRegistry.resolve("gpt-4o")
    # a ValueError too, as google-adk raises; a provider/model name is pointed to LiteLLM
    with pytest.raises(ValueError, match="No model class") as unknown:
        LLMRegistry.resolve("gpt-4o")
    assert isinstance(unknown.value, ModelNotFoundError)
    assert "LiteLLM" not in str(unknown.value)
    with pytest.raises(ModelNotFoundError, match=r"'lite:<provider>/<model>'.*\[litellm\]"):
        LLMRegistry.resolve("unknown-provider/gpt-4o")


def get_weather(city: str) -> dict[str, Any]:
    """Return the weather of a city."""
    return {"city": city, "sky": "clear"}


async def test_function_call_round_trip(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    fake.replies.append(
        (200, parts_body([{"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}]))
    )
    fake.replies.append((200, text_body("Clear skies in Oslo.")))
    agent = LlmAgent(name="weather", model=gemini(fake), tools=[get_weather], instruction="Help.")
    runner = await start(agent, session_service)
    events = await send(runner, "weather in Oslo?")
    assert [bool(e.get_function_calls()) for e in events] == [True, False, False]
    assert events[1].get_function_responses()[0].response == {"city": "Oslo", "sky": "clear"}
    assert texts(events[-1:]) == ["Clear skies in Oslo."]
    first = fake.requests[0][1]
    declaration = first["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "get_weather"
    # google-genai sends the JSON schema under the proto field name
    assert declaration["parameters_json_schema"]["required"] == ["city"]
    second = fake.requests[1][1]
    call, response = second["contents"][1], second["contents"][2]
    assert call["parts"][0]["functionCall"] == {"name": "get_weather", "args": {"city": "Oslo"}}
    assert response["parts"][0]["functionResponse"]["response"] == {"city": "Oslo", "sky": "clear"}
    assert "id" not in response["parts"][0]["functionResponse"]  # runtime ids stay local
    session = await stored(runner)
    assert len(session.events) == 4


async def test_streaming_agent_on_gemini(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    fake.replies.append(("sse", [text_body("Good "), text_body("morning")]))
    agent = LlmAgent(name="greeter", model=gemini(fake))
    runner = await start(agent, session_service)
    events = await send(runner, "hi", run_config=RunConfig(streaming_mode=StreamingMode.SSE))
    assert texts(events) == ["Good ", "morning", "Good morning"]
    assert texts((await stored(runner)).events) == ["hi", "Good morning"]


async def test_api_version_client_kwargs_and_a_client_of_ones_own(fake: FakeGemini) -> None:
    for _ in range(3):
        fake.replies.append((200, text_body("ok")))
    versioned = Gemini(
        model="gemini-2.5-flash",
        base_url=fake.base_url,
        api_version="v1",
        client_kwargs={"api_key": "key-from-kwargs"},
    )
    fake.clients.append(versioned)
    await collect(versioned, request("a"))
    assert fake.requests[-1][0] == "/v1/models/gemini-2.5-flash:generateContent"
    assert fake.api_keys[-1] == "key-from-kwargs"

    own = genai.Client(api_key="own-key", http_options=types.HttpOptions(base_url=fake.base_url))
    model = Gemini(model="gemini-2.5-flash", client=own, base_url="http://127.0.0.1:9/unused")
    assert model.api_client is own
    await collect(model, request("b"))
    assert fake.api_keys[-1] == "own-key"
    await model.aclose()  # the client is its owner's: still usable
    await collect(model, request("c"))
    assert len(fake.requests) == 3
    assert "client" not in model.model_dump()
    await own.aio.aclose()
