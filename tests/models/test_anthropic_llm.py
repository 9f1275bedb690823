"""Claude on the real ``anthropic`` async client against a fake Messages API on loopback."""

from __future__ import annotations

import base64
from typing import Any

import anthropic
import pytest
from anthropic.lib.vertex import AsyncAnthropicVertex
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.errors import ConfigurationError
from adk_runtime.models import LLMRegistry, LlmRequest, LlmResponse
from adk_runtime.models.anthropic_llm import (
    AnthropicGenerateContentConfig,
    AnthropicLlm,
    Claude,
    part_to_message_block,
)
from adk_runtime.sessions import InMemorySessionService
from tests.llm.helpers import send, start, texts, two_turns, upload
from tests.models.fake_apis import FakeApi

MODEL = "claude-sonnet-4-20250514"


def claude(fake: FakeApi) -> AnthropicLlm:
    client = anthropic.AsyncAnthropic(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    fake.clients.append(client)
    return AnthropicLlm(model=MODEL, client=client)


def message(content: list[dict[str, Any]], stop_reason: str = "end_turn") -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 4, "cache_read_input_tokens": 3},
    }


async def collect(
    model: AnthropicLlm, req: LlmRequest, *, stream: bool = False
) -> list[LlmResponse]:
    return [response async for response in model.generate_content_async(req, stream=stream)]


def weather_request() -> LlmRequest:
    req = LlmRequest(model=MODEL)
    req.config.system_instruction = "Be brief."
    req.config.tools = [
        types.Tool(
            function_declarations=[
                types.FunctionDeclaration(
                    name="get_weather",
                    description="The weather of a city.",
                    parameters=types.Schema(
                        type=types.Type.OBJECT,
                        properties={"city": types.Schema(type=types.Type.STRING)},
                        required=["city"],
                    ),
                )
            ]
        )
    ]
    png = b"\x89PNG fake"
    req.contents = [
        types.Content(
            role="user",
            parts=[
                types.Part(text="Weather?"),
                types.Part.from_bytes(data=png, mime_type="image/png"),
            ],
        ),
        types.Content(
            role="model",
            parts=[
                types.Part(
                    function_call=types.FunctionCall(
                        id="call.1", name="get_weather", args={"city": "Paris"}
                    )
                )
            ],
        ),
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id="call.1", name="get_weather", response={"result": {"temp": 21}}
                    )
                )
            ],
        ),
    ]
    return req


async def test_request_and_reply_translation(fake: FakeApi) -> None:
    fake.replies.append((200, message([{"type": "text", "text": "21 degrees."}])))
    [response] = await collect(claude(fake), weather_request())

    sent = fake.requests[0]
    assert sent["model"] == MODEL
    assert sent["system"] == "Be brief."
    assert sent["max_tokens"] == 8192
    assert sent["tools"] == [
        {
            "name": "get_weather",
            "description": "The weather of a city.",
            "input_schema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        }
    ]
    assert sent["tool_choice"] == {"type": "auto"}
    user, assistant, result = sent["messages"]
    assert user["role"] == "user"
    assert user["content"][1] == {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": "image/png",
            "data": base64.b64encode(b"\x89PNG fake").decode(),
        },
    }
    # "call.1" is not an id Anthropic takes: call and result get the same valid one.
    [tool_use] = assistant["content"]
    [tool_result] = result["content"]
    assert tool_use["type"] == "tool_use"
    assert tool_use["id"] == tool_result["tool_use_id"] == "toolu_fallback_0"
    assert tool_result["content"] == '{"temp": 21}'
    assert "sk-test" in fake.headers[0].get("x-api-key", fake.headers[0].get("authorization", ""))

    assert response.content is not None
    assert response.content.parts[0].text == "21 degrees."  # type: ignore[index]
    assert response.finish_reason == types.FinishReason.STOP
    assert response.model_version == MODEL
    usage = response.usage_metadata
    assert usage is not None
    assert (usage.prompt_token_count, usage.candidates_token_count) == (13, 4)
    assert usage.cached_content_token_count == 3


async def test_another_models_server_side_tool_parts_are_left_out(fake: FakeApi) -> None:
    # Gemini's own trace of a built-in tool in the stored history: after a model switch (or a
    # fallback model) Claude answers that conversation, on this turn and every later one.
    fake.replies += [(200, message([{"type": "text", "text": "Yes."}]))] * 2
    req = LlmRequest(model=MODEL)
    req.contents = [
        types.Content(role="user", parts=[types.Part(text="Any news?")]),
        types.Content(
            role="model",
            parts=[
                types.Part(tool_call=types.ToolCall(id="t1", args={"query": "news"})),
                types.Part(text="Here is the news."),
            ],
        ),
        types.Content(
            role="user",
            parts=[types.Part(tool_response=types.ToolResponse(id="t1", response={"n": 1}))],
        ),
        types.Content(role="user", parts=[types.Part(text="More?")]),
    ]
    for _ in range(2):
        [response] = await collect(claude(fake), req)
        assert response.error_code is None
    assert fake.requests[0]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Any news?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Here is the news."}]},
        {"role": "user", "content": [{"type": "text", "text": "."}]},
        {"role": "user", "content": [{"type": "text", "text": "More?"}]},
    ]
    with pytest.raises(NotImplementedError, match="tool_call"):
        part_to_message_block(req.contents[1].parts[0])  # type: ignore[index]


async def test_tool_use_becomes_a_function_call(fake: FakeApi) -> None:
    block = {"type": "tool_use", "id": "toolu_9", "name": "get_weather", "input": {"city": "Oslo"}}
    fake.replies.append((200, message([block], stop_reason="tool_use")))
    [response] = await collect(claude(fake), weather_request())
    assert response.content is not None
    call = response.content.parts[0].function_call  # type: ignore[index]
    assert call is not None
    assert (call.id, call.name, call.args) == ("toolu_9", "get_weather", {"city": "Oslo"})


def stream_events(blocks: list[tuple[dict[str, Any], list[dict[str, Any]]]]) -> list[Any]:
    events: list[Any] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    **message([]),
                    "stop_reason": None,
                    "usage": {"input_tokens": 7, "output_tokens": 1},
                },
            },
        )
    ]
    for index, (start_block, deltas) in enumerate(blocks):
        events.append(
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start_block},
            )
        )
        for delta in deltas:
            events.append(
                (
                    "content_block_delta",
                    {"type": "content_block_delta", "index": index, "delta": delta},
                )
            )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                "usage": {"output_tokens": 12},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


async def test_streaming_yields_partials_then_the_whole_reply(fake: FakeApi) -> None:
    fake.replies.append(
        (
            "sse",
            stream_events(
                [
                    (
                        {"type": "thinking", "thinking": "", "signature": ""},
                        [
                            {"type": "thinking_delta", "thinking": "Hmm."},
                            {"type": "signature_delta", "signature": "sig"},
                        ],
                    ),
                    (
                        {"type": "text", "text": ""},
                        [
                            {"type": "text_delta", "text": "Let me "},
                            {"type": "text_delta", "text": "check."},
                        ],
                    ),
                    (
                        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}},
                        [
                            {"type": "input_json_delta", "partial_json": '{"city": '},
                            {"type": "input_json_delta", "partial_json": '"Rome"}'},
                        ],
                    ),
                ]
            ),
        )
    )
    responses = await collect(claude(fake), weather_request(), stream=True)
    assert fake.requests[0]["stream"] is True
    *partials, final = responses
    assert all(r.partial for r in partials)
    assert [p.content.parts[0].text for p in partials if p.content.parts[0].text] == [  # type: ignore[union-attr,index]
        "Hmm.",
        "Let me ",
        "check.",
    ]
    assert final.partial is False
    thought, text, call = final.content.parts  # type: ignore[union-attr,misc]
    assert (thought.text, thought.thought, thought.thought_signature) == ("Hmm.", True, b"sig")
    assert text.text == "Let me check."
    assert call.function_call.args == {"city": "Rome"}
    assert call.function_call.id == "toolu_1"
    assert final.usage_metadata.prompt_token_count == 7  # type: ignore[union-attr]
    assert final.usage_metadata.candidates_token_count == 12  # type: ignore[union-attr]


async def test_api_error_is_a_response_without_the_key(fake: FakeApi) -> None:
    fake.replies.append(
        (429, {"type": "error", "error": {"type": "rate_limit_error", "message": "Slow down."}})
    )
    [response] = await collect(claude(fake), weather_request())
    assert response.error_code == "429"
    assert response.error_message is not None
    assert "Slow down." in response.error_message
    assert "sk-test" not in response.error_message


async def test_generation_settings_and_thinking(fake: FakeApi) -> None:
    fake.replies.append((200, message([{"type": "text", "text": "ok"}])))
    fake.replies.append((200, message([{"type": "text", "text": "ok"}])))
    model = claude(fake)
    req = weather_request()
    req.config.temperature = 0.2
    req.config.max_output_tokens = 100
    req.config.stop_sequences = ["END"]
    await collect(model, req)
    assert (fake.requests[0]["temperature"], fake.requests[0]["max_tokens"]) == (0.2, 100)
    assert fake.requests[0]["stop_sequences"] == ["END"]

    req = weather_request()
    req.config = AnthropicGenerateContentConfig(
        effort="high", thinking_config=types.ThinkingConfig(thinking_budget=-1), temperature=0.5
    )
    with pytest.warns(UserWarning, match="not sent"):
        await collect(model, req)
    sent = fake.requests[1]
    assert sent["thinking"] == {"type": "adaptive", "display": "summarized"}
    assert sent["output_config"] == {"effort": "high"}
    assert "temperature" not in sent


async def test_response_schema_rides_as_a_tool(fake: FakeApi) -> None:
    block = {
        "type": "tool_use",
        "id": "toolu_2",
        "name": "structured_output",
        "input": {"answer": 42},
    }
    fake.replies.append((200, message([block], stop_reason="tool_use")))
    req = LlmRequest(
        model=MODEL, contents=[types.Content(role="user", parts=[types.Part(text="?")])]
    )
    req.set_output_schema({"type": "object", "properties": {"answer": {"type": "integer"}}})
    [response] = await collect(claude(fake), req)
    assert fake.requests[0]["tool_choice"] == {"type": "tool", "name": "structured_output"}
    assert response.content.parts[0].text == '{"answer": 42}'  # type: ignore[union-attr,index]


async def test_client_from_the_environment(fake: FakeApi, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-env")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
    fake.replies.append((200, message([{"type": "text", "text": "hi"}])))
    model = AnthropicLlm(model=MODEL)
    [response] = await collect(model, weather_request())
    await model.aclose()
    assert response.content.parts[0].text == "hi"  # type: ignore[union-attr,index]
    assert "sk-env" in fake.headers[0].get("x-api-key", fake.headers[0].get("authorization", ""))


async def test_missing_key_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        await collect(AnthropicLlm(model=MODEL), weather_request())


async def test_claude_on_vertex_ai(fake: FakeApi) -> None:
    client = AsyncAnthropicVertex(
        project_id="proj", region="us-east5", access_token="tok", base_url=f"{fake.base_url}/v1"
    )
    fake.clients.append(client)
    fake.replies.append((200, message([{"type": "text", "text": "from vertex"}])))
    model = Claude(model="claude-3-5-sonnet-v2@20241022", client=client)
    [response] = await collect(model, weather_request())
    assert fake.paths[0] == (
        "/v1/projects/proj/locations/us-east5/publishers/anthropic/models/"
        "claude-sonnet-4-20250514:rawPredict"
    )
    assert response.content.parts[0].text == "from vertex"  # type: ignore[union-attr,index]


async def test_claude_needs_a_project(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GOOGLE_CLOUD_PROJECT", raising=False)
    monkeypatch.delenv("GOOGLE_CLOUD_LOCATION", raising=False)
    with pytest.raises(ConfigurationError, match="GOOGLE_CLOUD_PROJECT"):
        await collect(Claude(model="claude-3-5-sonnet-v2@20241022"), weather_request())


def test_registry_resolves_claude_names() -> None:
    assert LLMRegistry.resolve("claude-opus-4@20250514") is Claude
    agent = LlmAgent(name="a", model="claude-sonnet-4@20250514")
    assert isinstance(agent.canonical_model, Claude)


async def test_agent_runs_a_tool_through_claude(fake: FakeApi) -> None:
    def get_weather(city: str) -> dict[str, Any]:
        """The weather of a city."""
        return {"city": city, "temp": 19}

    block = {"type": "tool_use", "id": "toolu_5", "name": "get_weather", "input": {"city": "Lima"}}
    fake.replies.append((200, message([block], stop_reason="tool_use")))
    fake.replies.append((200, message([{"type": "text", "text": "19 in Lima."}])))
    agent = LlmAgent(name="weather", model=claude(fake), tools=[get_weather], instruction="Help.")
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "Weather in Lima?")
    assert texts(events)[-1] == "19 in Lima."
    second = fake.requests[1]["messages"]
    assert second[-1]["content"][0]["tool_use_id"] == "toolu_5"
    assert '"temp": 19' in second[-1]["content"][0]["content"]


async def test_tool_media_is_in_the_tool_result_and_an_unreadable_type_is_a_note(
    fake: FakeApi,
) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(32))

    def export(city: str) -> list[types.Part]:
        """Export a city's chart and its data."""
        return [
            types.Part.from_bytes(data=png, mime_type="image/png"),
            types.Part.from_bytes(data=b"PK\x03\x04", mime_type="application/zip"),
        ]

    block = {"type": "tool_use", "id": "toolu_9", "name": "export", "input": {"city": "Oslo"}}
    fake.replies.append((200, message([block], stop_reason="tool_use")))
    fake.replies.append((200, message([{"type": "text", "text": "Done."}])))
    fake.replies.append((200, message([{"type": "text", "text": "Still here."}])))
    agent = LlmAgent(name="exporter", model=claude(fake), tools=[export], instruction="Help.")
    # the stored zip is sent again with the history: the next turn still works
    assert await two_turns(agent, "Export Oslo") == ["Done.", "Still here."]

    for sent in fake.requests[1:]:
        (result,) = [
            item
            for turn in sent["messages"]
            if isinstance(turn["content"], list)
            for item in turn["content"]
            if item["type"] == "tool_result"
        ]
        assert result["tool_use_id"] == "toolu_9"
        image, note = result["content"]
        assert image["source"] == {
            "type": "base64",
            "media_type": "image/png",
            "data": base64.b64encode(png).decode("ascii"),
        }
        assert note["type"] == "text"
        assert "application/zip" in note["text"]
        assert "export" in note["text"]


async def test_a_message_attachment_claude_cannot_read_is_a_note_on_every_turn(
    fake: FakeApi,
) -> None:
    fake.replies.append((200, message([{"type": "text", "text": "I cannot open those."}])))
    fake.replies.append((200, message([{"type": "text", "text": "Still here."}])))
    agent = LlmAgent(name="reader", model=claude(fake), instruction="Help.")
    attached = upload(
        "Read these.",
        types.Part.from_bytes(data=b"PK\x03\x04", mime_type="application/zip"),
        types.Part.from_bytes(data=b"BM", mime_type="image/bmp"),
        types.Part.from_uri(file_uri="https://files.test/a.mp4", mime_type="video/mp4"),
    )
    assert await two_turns(agent, attached) == ["I cannot open those.", "Still here."]
    for sent in fake.requests:
        text, *notes = sent["messages"][0]["content"]
        assert text == {"type": "text", "text": "Read these."}
        assert [note["type"] for note in notes] == ["text", "text", "text"]
        for note, mime in zip(notes, ["application/zip", "image/bmp", "video/mp4"], strict=True):
            assert mime in note["text"]
            assert "not shown" in note["text"]
