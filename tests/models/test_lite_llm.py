"""LiteLlm on the real ``litellm.acompletion`` against a fake OpenAI-style server on loopback."""

from __future__ import annotations

import base64
import json
import socket
from typing import Any

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.models import FallbackModel, LLMRegistry, LlmRequest, LlmResponse
from adk_runtime.models.lite_llm import LiteLlm
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel
from tests.llm.helpers import send, start, texts, two_turns, upload
from tests.models.fake_apis import LITELLM_WARNINGS, FakeApi

MODEL = "openai/gpt-4o"

# LiteLLM's own models make pydantic warn (its TypedDicts, and an attribute its streaming
# reads); nothing of ours.
pytestmark = LITELLM_WARNINGS


def lite(fake: FakeApi, **kwargs: Any) -> LiteLlm:
    return LiteLlm(
        model=MODEL, api_base=f"{fake.base_url}/v1", api_key="sk-test", num_retries=0, **kwargs
    )


def completion(message: dict[str, Any], finish_reason: str = "stop") -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-2024",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", **message},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
    }


def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "gpt-4o-2024",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
    }


async def collect(model: LiteLlm, req: LlmRequest, *, stream: bool = False) -> list[LlmResponse]:
    return [response async for response in model.generate_content_async(req, stream=stream)]


def weather_request() -> LlmRequest:
    req = LlmRequest(model=MODEL)
    req.config.system_instruction = "Be brief."
    req.config.temperature = 0.3
    req.config.max_output_tokens = 50
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
    req.contents = [
        types.Content(
            role="user",
            parts=[
                types.Part(text="Weather?"),
                types.Part.from_bytes(data=b"img", mime_type="image/jpeg"),
            ],
        ),
        types.Content(
            role="model",
            parts=[
                types.Part(
                    function_call=types.FunctionCall(
                        id="call_1", name="get_weather", args={"city": "Paris"}
                    )
                )
            ],
        ),
        types.Content(
            role="user",
            parts=[
                types.Part(
                    function_response=types.FunctionResponse(
                        id="call_1", name="get_weather", response={"temp": 21}
                    )
                )
            ],
        ),
    ]
    return req


async def test_request_and_reply_translation(fake: FakeApi) -> None:
    fake.replies.append((200, completion({"content": "21 degrees."})))
    [response] = await collect(lite(fake), weather_request())

    sent = fake.requests[0]
    assert fake.paths[0] == "/v1/chat/completions"
    assert sent["model"] == "gpt-4o"
    assert sent["temperature"] == 0.3
    assert sent["max_completion_tokens"] == 50 or sent.get("max_tokens") == 50
    system, user, assistant, tool = sent["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    assert user["content"][0] == {"type": "text", "text": "Weather?"}
    assert user["content"][1]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    assert assistant["tool_calls"][0]["function"] == {
        "name": "get_weather",
        "arguments": json.dumps({"city": "Paris"}),
    }
    assert tool == {"role": "tool", "tool_call_id": "call_1", "content": '{"temp": 21}'}
    assert sent["tools"][0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    }
    assert fake.headers[0]["authorization"] == "Bearer sk-test"

    assert response.content.parts[0].text == "21 degrees."  # type: ignore[union-attr,index]
    assert response.finish_reason == types.FinishReason.STOP
    assert response.usage_metadata.total_token_count == 16  # type: ignore[union-attr]


async def test_tool_calls_become_function_calls(fake: FakeApi) -> None:
    call = {
        "id": "call_7",
        "type": "function",
        "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
    }
    fake.replies.append((200, completion({"content": None, "tool_calls": [call]}, "tool_calls")))
    [response] = await collect(lite(fake), weather_request())
    function_call = response.content.parts[0].function_call  # type: ignore[union-attr,index]
    assert function_call is not None
    assert (function_call.id, function_call.name, function_call.args) == (
        "call_7",
        "get_weather",
        {"city": "Oslo"},
    )


async def test_streaming_aggregates_text_and_tool_calls(fake: FakeApi) -> None:
    fake.replies.append(
        (
            "sse",
            [
                chunk({"role": "assistant", "content": "Let me "}),
                chunk({"content": "check."}),
                chunk(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": "call_3",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": ""},
                            }
                        ]
                    }
                ),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": '}}]}),
                chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Rome"}'}}]}),
                chunk({}, "tool_calls"),
                {
                    **chunk({}),
                    "choices": [],
                    "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
                },
            ],
        )
    )
    responses = await collect(lite(fake), weather_request(), stream=True)
    assert fake.requests[0]["stream"] is True
    *partials, final = responses
    assert all(r.partial for r in partials)
    assert [p.content.parts[0].text for p in partials if p.content.parts[0].text] == [
        "Let me ",
        "check.",
    ]  # type: ignore[union-attr,index]
    assert final.partial is False
    assert final.turn_complete is None  # it asks for a call: the model's turn goes on
    text, call = final.content.parts  # type: ignore[union-attr,misc]
    assert text.text == "Let me check."
    assert (call.function_call.id, call.function_call.args) == ("call_3", {"city": "Rome"})
    assert final.usage_metadata.total_token_count == 12  # type: ignore[union-attr]


async def test_api_error_is_a_response_without_the_key(fake: FakeApi) -> None:
    fake.replies.append(
        (401, {"error": {"message": "Bad credentials.", "type": "invalid_request_error"}})
    )
    [response] = await collect(lite(fake), weather_request())
    assert response.error_code == "401"
    assert response.error_message is not None
    assert "sk-test" not in response.error_message


async def test_a_refused_connection_is_no_http_500_and_does_not_fail_over() -> None:
    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    closed = LiteLlm(
        model=MODEL, api_base=f"http://127.0.0.1:{port}/v1", api_key="sk-test", num_retries=0
    )
    [response] = await collect(closed, weather_request())
    # LiteLLM labels it 500; a 500 would make a FallbackModel send the prompt elsewhere
    assert response.error_code == "CONNECTION_ERROR"
    backup = ScriptedModel(replies=["unused"])
    [response] = [
        r
        async for r in FallbackModel(models=[closed, backup]).generate_content_async(
            weather_request()
        )
    ]
    assert response.error_code == "CONNECTION_ERROR"
    assert backup.requests == []


async def test_response_schema_is_a_response_format(fake: FakeApi) -> None:
    fake.replies.append((200, completion({"content": '{"answer": 1}'})))
    req = LlmRequest(
        model=MODEL, contents=[types.Content(role="user", parts=[types.Part(text="?")])]
    )
    req.set_output_schema({"type": "object", "properties": {"answer": {"type": "integer"}}})
    await collect(lite(fake), req)
    assert fake.requests[0]["response_format"]["type"] == "json_schema"
    assert fake.requests[0]["response_format"]["json_schema"]["schema"]["properties"] == {
        "answer": {"type": "integer"}
    }


def test_registry_resolves_provider_names() -> None:
    for name in ("openai/gpt-4o", "groq/llama3-70b-8192", "anthropic/claude-3-opus-20240229"):
        assert LLMRegistry.resolve(name) is LiteLlm
        agent = LlmAgent(name="a", model=name)
        assert isinstance(agent.canonical_model, LiteLlm)
        assert agent.canonical_model.model == name


def queue_tool_call_then_answer(
    fake: FakeApi, call_id: str, name: str, args: dict[str, Any], answer: str
) -> None:
    """Queue the model's two replies: a call of ``name`` with ``args``, then ``answer``."""
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(args)},
    }
    fake.replies.append((200, completion({"content": None, "tool_calls": [call]}, "tool_calls")))
    fake.replies.append((200, completion({"content": answer})))


async def test_agent_runs_a_tool_through_litellm(fake: FakeApi) -> None:
    def get_weather(city: str) -> dict[str, Any]:
        """The weather of a city."""
        return {"city": city, "temp": 19}

    queue_tool_call_then_answer(fake, "call_5", "get_weather", {"city": "Lima"}, "19 in Lima.")
    agent = LlmAgent(name="weather", model=lite(fake), tools=[get_weather], instruction="Help.")
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "Weather in Lima?")
    assert texts(events)[-1] == "19 in Lima."
    tool_message = fake.requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["tool_call_id"] == "call_5"
    assert json.loads(tool_message["content"]) == {"city": "Lima", "temp": 19}


async def test_media_a_tool_returns_follows_its_tool_message_as_user_content(
    fake: FakeApi,
) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(64))

    def chart(city: str) -> dict[str, Any]:
        """A chart of a city's weather."""
        return {
            "city": city,
            "chart": types.Part.from_bytes(data=png, mime_type="image/png"),
            "source": types.Part.from_uri(file_uri="https://x.test/a.png", mime_type="image/png"),
        }

    queue_tool_call_then_answer(fake, "call_7", "chart", {"city": "Oslo"}, "Rainy.")
    agent = LlmAgent(name="charts", model=lite(fake), tools=[chart], instruction="Help.")
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "Chart Oslo")
    assert texts(events)[-1] == "Rainy."
    *_, assistant, tool, media = fake.requests[1]["messages"]
    assert assistant["tool_calls"][0]["id"] == "call_7"
    assert tool == {"role": "tool", "tool_call_id": "call_7", "content": '{"city": "Oslo"}'}
    assert media["role"] == "user"
    inline, linked = media["content"]
    encoded = base64.b64encode(png).decode("ascii")
    assert inline == {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{encoded}"}}
    assert linked == {"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}


async def test_tool_media_litellm_cannot_send_is_a_note_and_later_turns_still_work(
    fake: FakeApi,
) -> None:
    def export(city: str) -> types.Part:
        """Export a city's data."""
        return types.Part.from_bytes(data=b"PK\x03\x04", mime_type="application/zip")

    queue_tool_call_then_answer(fake, "call_9", "export", {"city": "Oslo"}, "Exported.")
    fake.replies.append((200, completion({"content": "Still here."})))
    agent = LlmAgent(name="exporter", model=lite(fake), tools=[export], instruction="Help.")
    assert await two_turns(agent, "Export Oslo") == ["Exported.", "Still here."]
    for sent in fake.requests[1:]:
        at = next(i for i, m in enumerate(sent["messages"]) if m["role"] == "tool")
        tool, note = sent["messages"][at : at + 2]
        assert tool["tool_call_id"] == "call_9"
        assert note["role"] == "user"
        assert "application/zip" in note["content"]
        assert "export" in note["content"]


async def test_a_message_attachment_litellm_cannot_send_is_a_note_on_every_turn(
    fake: FakeApi,
) -> None:
    fake.replies.append((200, completion({"content": "I cannot open it."})))
    fake.replies.append((200, completion({"content": "Still here."})))
    agent = LlmAgent(name="reader", model=lite(fake), instruction="Help.")
    message = upload(
        "Read this.", types.Part.from_bytes(data=b"PK\x03\x04", mime_type="application/zip")
    )
    # the second turn sends the stored message again
    assert await two_turns(agent, message) == ["I cannot open it.", "Still here."]
    for sent in fake.requests:
        (first,) = [m for m in sent["messages"] if m["role"] == "user"][:1]
        text, note = first["content"]
        assert text == {"type": "text", "text": "Read this."}
        assert note["type"] == "text"
        assert "application/zip" in note["text"]
        assert "not shown" in note["text"]
