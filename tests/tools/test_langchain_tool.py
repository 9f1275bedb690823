"""LangchainTool: LangChain tools (langchain-core) called by an adk_runtime agent."""

from __future__ import annotations

import importlib
import sys
from typing import Any

import pytest
from langchain_core.tools import BaseTool as LangchainBaseTool
from langchain_core.tools import ToolException, tool

from adk_runtime.agents import LlmAgent
from adk_runtime.integrations.langchain import LangchainTool
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import send, start, stored, texts


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
async def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


class Lookup(LangchainBaseTool):
    name: str = "lookup"
    description: str = "Look a word up; its answer is final."
    return_direct: bool = True

    def _run(self, word: str) -> str:
        if word == "boom":
            raise ToolException("no such word")
        return f"{word}: a word"


class Legacy:
    """Not a LangChain class: only a run method."""

    name = "legacy"
    description = "Old-style tool."

    def run(self, **kwargs: Any) -> dict[str, Any]:
        return {"got": kwargs}


async def test_an_agent_calls_langchain_tools() -> None:
    model = ScriptedModel(
        replies=[
            [function_call("add", {"a": 2, "b": 3}), function_call("shout", {"text": "hi"})],
            "2 + 3 = 5, HI",
        ]
    )
    tools = [LangchainTool(add), LangchainTool(shout)]
    runner = await start(LlmAgent(name="a", model=model, tools=tools), InMemorySessionService())
    events = await send(runner, "go")
    responses = {r.name: r.response for r in events[1].get_function_responses()}
    assert responses == {"add": {"result": 5}, "shout": {"result": "HI"}}
    assert texts(events) == ["2 + 3 = 5, HI"]
    declared = model.requests[0].config.tools
    assert declared is not None
    (add_declaration, _) = declared[0].function_declarations or []
    assert add_declaration.description == "Add two integers."
    schema = add_declaration.parameters_json_schema
    assert isinstance(schema, dict)
    assert schema["required"] == ["a", "b"]
    assert schema["properties"]["a"]["type"] == "integer"


async def test_return_direct_ends_the_turn_and_tool_errors_reach_the_model() -> None:
    model = ScriptedModel(
        replies=[
            function_call("lookup", {"word": "boom"}),
            function_call("lookup", {"word": "kit"}),
        ]
    )
    wrapped = LangchainTool(Lookup(), description="Look words up.")
    runner = await start(LlmAgent(name="a", model=model, tools=[wrapped]), InMemorySessionService())
    events = await send(runner, "define")
    responses = [r.response for e in events for r in e.get_function_responses()]
    assert responses[0] is not None
    assert "no such word" in str(responses[0])
    assert responses[1] == {"result": "kit: a word"}
    assert len(model.requests) == 2  # the direct answer ended the turn: no third model call
    assert (await stored(runner)).events[-1].actions.skip_summarization
    assert wrapped.description == "Look words up."


async def test_an_object_with_a_run_method_and_a_non_tool() -> None:
    model = ScriptedModel(replies=[function_call("legacy", {"x": 1}), "ok"])
    runner = await start(
        LlmAgent(name="a", model=model, tools=[LangchainTool(Legacy())]), InMemorySessionService()
    )
    events = await send(runner, "go")
    assert events[1].get_function_responses()[0].response == {"got": {"x": 1}}
    with pytest.raises(ValueError, match="not a LangChain tool"):
        LangchainTool(object())


def test_the_old_path_warns() -> None:
    sys.modules.pop("adk_runtime.tools.langchain_tool", None)
    with pytest.warns(DeprecationWarning, match="integrations.langchain"):
        module = importlib.import_module("adk_runtime.tools.langchain_tool")
    assert module.LangchainTool is LangchainTool
