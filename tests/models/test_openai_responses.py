"""``labs.openai.OpenAIResponsesLlm``: OpenAI's Responses API, against a fake server."""

from __future__ import annotations

import json
from typing import Any

from adk_runtime.agents import LlmAgent
from adk_runtime.labs.openai import OpenAIResponsesLlm
from adk_runtime.sessions import InMemorySessionService
from tests.llm.helpers import send, start, texts
from tests.models.fake_apis import LITELLM_WARNINGS, FakeApi

pytestmark = LITELLM_WARNINGS


def reply(*output: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "gpt-5-2025",
        "output": list(output),
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": 9,
            "output_tokens": 3,
            "total_tokens": 12,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0},
        },
    }


def text_item(text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": "msg_1",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


async def test_an_agent_runs_a_tool_through_the_responses_api(fake: FakeApi) -> None:
    def get_weather(city: str) -> dict[str, Any]:
        """The weather of a city."""
        return {"city": city, "temp": 19}

    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": '{"city": "Lima"}',
        "status": "completed",
    }
    fake.replies += [(200, reply(call)), (200, reply(text_item("19 in Lima.")))]
    model = OpenAIResponsesLlm(
        model="gpt-5", api_key="sk-test", base_url=f"{fake.base_url}/v1", num_retries=0
    )
    agent = LlmAgent(name="weather", model=model, tools=[get_weather], instruction="Help.")
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "Weather in Lima?")

    assert texts(events)[-1] == "19 in Lima."
    assert fake.paths == ["/v1/responses", "/v1/responses"]
    first, second = fake.requests
    assert first["model"] == "gpt-5"
    assert [tool["name"] for tool in first["tools"]] == ["get_weather"]
    items = second["input"]
    calls = [item for item in items if item.get("type") == "function_call"]
    outputs = [item for item in items if item.get("type") == "function_call_output"]
    assert len(calls) == len(outputs) == 1
    assert calls[0]["call_id"] == outputs[0]["call_id"]
    (output,) = outputs[0]["output"]
    assert json.loads(output["text"]) == {"city": "Lima", "temp": 19}
    assert fake.headers[0]["authorization"] == "Bearer sk-test"


async def test_an_api_error_is_a_response_with_its_code(fake: FakeApi) -> None:
    fake.replies.append((401, {"error": {"message": "bad key", "type": "invalid_request"}}))
    model = OpenAIResponsesLlm(
        model="gpt-5", api_key="sk-wrong", base_url=f"{fake.base_url}/v1", num_retries=0
    )
    agent = LlmAgent(name="bot", model=model)
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "hi")
    assert events[-1].error_code == "401"
    assert "sk-wrong" not in (events[-1].error_message or "")
