"""ExampleTool: few-shot examples in the model's instruction, fixed or picked per message."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, config_agent_utils
from adk_runtime.examples import BaseExampleProvider, Example
from adk_runtime.examples.example_util import build_example_si
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools import ExampleTool
from tests.llm.helpers import send, start

WEATHER: dict[str, Any] = {
    "input": {"role": "user", "parts": [{"text": "Weather in Oslo?"}]},
    "output": [
        {
            "role": "model",
            "parts": [{"function_call": {"name": "lookup", "args": {"city": "Oslo", "days": 2}}}],
        },
        {
            "role": "user",
            "parts": [{"function_response": {"name": "lookup", "response": {"celsius": 4}}}],
        },
        {"role": "model", "parts": [{"text": "It is 4 °C in Oslo."}]},
    ],
}


def system_text(model: ScriptedModel, index: int = 0) -> str:
    instruction = model.requests[index].config.system_instruction
    if isinstance(instruction, types.Content):
        return "".join(part.text or "" for part in instruction.parts or [])
    return str(instruction or "")


async def test_examples_reach_the_instruction_and_the_tool_is_not_a_function() -> None:
    model = ScriptedModel(replies=["ok"])
    agent = LlmAgent(name="a", model=model, instruction="Be brief.", tools=[ExampleTool([WEATHER])])
    await send(await start(agent, InMemorySessionService()), "and in Rome?")
    text = system_text(model)
    assert text.startswith("Be brief.")
    block = text[text.index("<EXAMPLES>") :]
    assert block.endswith("</EXAMPLES>")
    assert "Example 1\n[user]\nWeather in Oslo?\n[model]\n" in block
    assert 'call: lookup(city="Oslo", days=2)' in block
    assert '[tools]\nresult of lookup: {"celsius": 4}\n[model]\nIt is 4 °C in Oslo.' in block
    assert model.requests[0].config.tools is None  # nothing offered as a function


class ByCity(BaseExampleProvider):
    def __init__(self) -> None:
        self.queries: list[str] = []

    def get_examples(self, query: str) -> list[Example]:
        self.queries.append(query)
        return [Example.model_validate(WEATHER)] if "weather" in query.lower() else []


async def test_a_provider_picks_examples_for_each_message() -> None:
    provider = ByCity()
    model = ScriptedModel(replies=["ok", "ok"])
    runner = await start(
        LlmAgent(name="a", model=model, tools=[ExampleTool(provider)]), InMemorySessionService()
    )
    await send(runner, "Weather in Paris?")
    await send(runner, "Tell me a joke")
    assert provider.queries == ["Weather in Paris?", "Tell me a joke"]
    assert "Weather in Oslo?" in system_text(model)
    assert "<EXAMPLES>" not in system_text(model, 1)  # none for a joke: no block at all


def test_examples_are_validated_and_other_values_refused() -> None:
    with pytest.raises(pydantic.ValidationError):
        ExampleTool([{"input": "not content"}])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="BaseExampleProvider"):
        build_example_si("examples", "q")  # type: ignore[arg-type]
    empty = build_example_si([], "q")
    assert empty.startswith("<EXAMPLES>\n")
    assert empty.endswith("</EXAMPLES>")
    assert "Example 1" not in empty


def test_an_agent_yaml_file_declares_examples(tmp_path: Path) -> None:
    (tmp_path / "root.yaml").write_text(
        textwrap.dedent(
            """
            name: root
            instruction: Use the examples.
            tools:
              - name: adk_runtime.tools.example_tool.ExampleTool
                args:
                  examples:
                    - input: {role: user, parts: [{text: "Weather in Oslo?"}]}
                      output:
                        - {role: model, parts: [{text: "It is 4 °C."}]}
            """
        ),
        encoding="utf-8",
    )
    agent = config_agent_utils.from_config(str(tmp_path / "root.yaml"))
    assert isinstance(agent, LlmAgent)
    (tool,) = agent.tools
    assert isinstance(tool, ExampleTool)
    assert isinstance(tool.examples, list)
    assert tool.examples[0].output[0].parts[0].text == "It is 4 °C."  # type: ignore[index]
