"""Gemma 3 on the real google-genai client against the fake Gemini server: tools in text."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_runtime.agents import LlmAgent, RunConfig, StreamingMode
from adk_runtime.errors import ConfigurationError, UnsupportedFeatureError
from adk_runtime.models import Gemini, Gemma, LLMRegistry, LlmRequest
from adk_runtime.sessions import BaseSessionService
from tests.llm.fake_gemini import FakeGemini, serving, text_body
from tests.llm.helpers import send, start, stored, texts

FAST_RETRY = types.HttpRetryOptions(attempts=2, initial_delay=0.01, max_delay=0.02)
MODEL = "gemma-3-27b-it"


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGemini]:
    async with serving(monkeypatch) as server:
        yield server


def gemma(fake: FakeGemini) -> Gemma:
    model = Gemma(model=MODEL, base_url=fake.base_url, retry_options=FAST_RETRY)
    fake.clients.append(model)
    return model


def get_weather(city: str) -> dict[str, Any]:
    """Return the weather of a city."""
    return {"city": city, "sky": "clear"}


def test_gemma_names_resolve_by_generation() -> None:
    assert LLMRegistry.resolve("gemma-3-27b-it") is Gemma
    assert LLMRegistry.resolve("gemma-3-1b-it") is Gemma
    # Gemma 4 calls functions natively: plain Gemini
    assert LLMRegistry.resolve("gemma-4-31b-it") is Gemini
    agent = LlmAgent(name="a", model="gemma-3-12b-it")
    assert isinstance(agent.canonical_model, Gemma)
    assert agent.canonical_model.model == "gemma-3-12b-it"


async def test_agent_calls_a_tool_written_as_json_text(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    call = '```json\n{"name": "get_weather", "parameters": {"city": "Oslo"}}\n```'
    fake.replies += [(200, text_body(call)), (200, text_body("Clear skies in Oslo."))]
    agent = LlmAgent(name="weather", model=gemma(fake), tools=[get_weather], instruction="Help.")
    runner = await start(agent, session_service)
    events = await send(runner, "weather in Oslo?")

    assert events[0].get_function_calls()[0].name == "get_weather"
    assert events[0].get_function_calls()[0].args == {"city": "Oslo"}
    assert events[1].get_function_responses()[0].response == {"city": "Oslo", "sky": "clear"}
    assert texts(events[-1:]) == ["Clear skies in Oslo."]
    assert len((await stored(runner)).events) == 4

    for path, body in fake.requests:
        assert path.endswith(f"/models/{MODEL}:generateContent")
        # the Gemini API refuses both for Gemma 3
        assert "tools" not in body
        assert "systemInstruction" not in body
    first, second = (body["contents"] for _, body in fake.requests)
    instruction = first[0]["parts"][0]["text"]
    assert first[0]["role"] == "user"
    assert instruction.startswith("Help.")
    [declaration], _ = json.JSONDecoder().raw_decode(instruction, instruction.index("\n[") + 1)
    assert declaration["name"] == "get_weather"
    assert declaration["description"] == "Return the weather of a city."
    assert declaration["parameters"]["required"] == ["city"]
    assert '{"name": ' in instruction  # the format of a call
    assert first[1] == {"role": "user", "parts": [{"text": "weather in Oslo?"}]}
    # the history: the call as the JSON the model answers with, the result as user text
    assert second[0] == first[0]
    assert second[1] == first[1]
    assert second[2]["role"] == "model"
    assert json.loads(second[2]["parts"][0]["text"]) == {
        "name": "get_weather",
        "parameters": {"city": "Oslo"},
    }
    assert second[3]["role"] == "user"
    result = second[3]["parts"][0]["text"]
    assert "get_weather" in result
    assert json.loads(result[result.index("{") :]) == {"city": "Oslo", "sky": "clear"}


async def test_streamed_call_is_partial_text_then_the_call(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    chunks = [text_body('{"name": "get_weather", '), text_body('"args": {"city": "Rome"}}')]
    fake.replies += [("sse", chunks), ("sse", [text_body("Sunny.")])]
    agent = LlmAgent(name="weather", model=gemma(fake), tools=[get_weather])
    runner = await start(agent, session_service)
    config = RunConfig(streaming_mode=StreamingMode.SSE)
    events = await send(runner, "Rome?", run_config=config)
    complete = [event for event in events if not event.partial]
    assert complete[0].get_function_calls()[0].args == {"city": "Rome"}
    assert complete[1].get_function_responses()[0].response["city"] == "Rome"
    assert texts(complete[-1:]) == ["Sunny."]
    assert all(not event.get_function_calls() for event in events if event.partial)


async def test_json_that_calls_no_declared_function_stays_text(fake: FakeGemini) -> None:
    answer = 'Here you go: {"name": "Ada", "parameters": {"age": 36}}'
    fake.replies += [(200, text_body(answer)), (200, text_body('{"name": "get_weather"'))]
    request = LlmRequest(model=MODEL, contents=[_user("Who?")])
    request.config.tools = [_weather_tool()]
    original = request.model_copy(deep=True)
    for expected in (answer, '{"name": "get_weather"'):  # not a declared name; malformed
        [response] = [r async for r in gemma(fake).generate_content_async(request)]
        assert response.content is not None
        assert response.content.parts[0].text == expected  # type: ignore[index]
    assert request == original  # the agent's request is left as it was


class Forecast(BaseModel):
    city: str
    high: int


async def test_output_schema_is_asked_for_in_the_instruction(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    fake.replies.append((200, text_body('```json\n{"city": "Oslo", "high": 12}\n```')))
    agent = LlmAgent(
        name="forecaster",
        model=gemma(fake),
        output_schema=Forecast,
        output_key="forecast",
        instruction="Forecast.",
    )
    runner = await start(agent, session_service)
    await send(runner, "Oslo tomorrow?")

    [(_, body)] = fake.requests
    generation = body.get("generationConfig", {})
    # the Gemini API answers 400 "JSON mode is not enabled" for Gemma 3
    for key in ("responseMimeType", "responseSchema", "responseJsonSchema"):
        assert key not in generation
    instruction = body["contents"][0]["parts"][0]["text"]
    schema, _ = json.JSONDecoder().raw_decode(instruction, instruction.index("schema: ") + 8)
    assert schema["properties"]["high"]["type"] == "integer"
    assert schema["required"] == ["city", "high"]
    assert (await stored(runner)).state["forecast"] == {"city": "Oslo", "high": 12}


async def test_built_in_tools_are_refused_before_any_call(fake: FakeGemini) -> None:
    request = LlmRequest(model=MODEL, contents=[_user("news?")])
    request.config.tools = [types.Tool(google_search=types.GoogleSearch()), _weather_tool()]
    with pytest.raises(UnsupportedFeatureError, match="google_search"):
        _ = [r async for r in gemma(fake).generate_content_async(request)]
    assert fake.requests == []


async def test_a_model_that_is_not_gemma_is_refused(fake: FakeGemini) -> None:
    request = LlmRequest(model="gemini-2.5-flash", contents=[_user("hi")])
    with pytest.raises(ConfigurationError, match=r"gemini-2\.5-flash"):
        _ = [r async for r in gemma(fake).generate_content_async(request)]
    assert fake.requests == []


async def test_gemma_uses_the_gemini_api_even_when_vertex_ai_is_set(
    fake: FakeGemini, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
    fake.replies.append((200, text_body("hi")))
    request = LlmRequest(model=MODEL, contents=[_user("hi")])
    request.config.system_instruction = types.Content(parts=[types.Part(text="Be kind.")])
    [response] = [r async for r in gemma(fake).generate_content_async(request)]
    assert response.content is not None
    [(path, body)] = fake.requests
    assert path.endswith(f"/models/{MODEL}:generateContent")  # not a Vertex AI route
    assert "/publishers/" not in path
    assert "systemInstruction" not in body
    assert body["contents"][0] == {"role": "user", "parts": [{"text": "Be kind."}]}


def _user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _weather_tool() -> types.Tool:
    declaration = types.FunctionDeclaration(
        name="get_weather",
        description="Weather.",
        parameters=types.Schema(
            type=types.Type.OBJECT, properties={"city": types.Schema(type=types.Type.STRING)}
        ),
    )
    return types.Tool(function_declarations=[declaration])
