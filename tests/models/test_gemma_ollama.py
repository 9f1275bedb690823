"""Gemma3Ollama on the real ``litellm.acompletion``: Gemma 3 served without tool calling."""

from __future__ import annotations

from typing import Any

from adk_runtime.agents import LlmAgent
from adk_runtime.models import LLMRegistry
from adk_runtime.models.gemma_llm import Gemma3Ollama
from adk_runtime.models.lite_llm import LiteLlm
from adk_runtime.sessions import InMemorySessionService
from tests.llm.helpers import send, start, texts
from tests.models.fake_apis import LITELLM_WARNINGS, FakeApi
from tests.models.test_lite_llm import completion

pytestmark = LITELLM_WARNINGS


def test_gemma3_on_ollama_resolves_to_gemma3ollama() -> None:
    assert LLMRegistry.resolve("ollama/gemma3:12b") is Gemma3Ollama
    assert LLMRegistry.resolve("ollama_chat/gemma3:27b") is Gemma3Ollama
    assert LLMRegistry.resolve("ollama/llama3.2") is LiteLlm
    assert Gemma3Ollama().model == "ollama/gemma3:12b"


async def test_agent_calls_a_tool_through_a_server_without_tool_calling(fake: FakeApi) -> None:
    def get_weather(city: str) -> dict[str, Any]:
        """The weather of a city."""
        return {"city": city, "temp": 19}

    call = 'Sure.\n```json\n{"name": "get_weather", "parameters": {"city": "Lima"}}\n```'
    fake.replies += [
        (200, completion({"content": call})),
        (200, completion({"content": "19 degrees in Lima."})),
    ]
    # Gemma 3 behind any LiteLLM route: here an OpenAI-compatible server (as vLLM serves it)
    model = Gemma3Ollama(
        model="openai/gemma-3-12b-it", api_base=f"{fake.base_url}/v1", api_key="k", num_retries=0
    )
    agent = LlmAgent(name="weather", model=model, tools=[get_weather], instruction="Help.")
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "Weather in Lima?")

    assert events[0].get_function_calls()[0].args == {"city": "Lima"}
    assert events[1].get_function_responses()[0].response == {"city": "Lima", "temp": 19}
    assert texts(events[-1:]) == ["19 degrees in Lima."]
    first, second = fake.requests
    assert "tools" not in first
    assert "tools" not in second
    system = first["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("Help.")
    assert '"name": "get_weather"' in system["content"]
    # no tool messages: the call and its result are plain turns
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][2]["content"] == (
        '{"name": "get_weather", "parameters": {"city": "Lima"}}'
    )
    assert '{"city": "Lima", "temp": 19}' in second["messages"][3]["content"]
