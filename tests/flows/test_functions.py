"""google-adk's function-call helpers run the calls as the LLM flow does."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import InvocationContext, LlmAgent
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.errors import UnsupportedFeatureError
from adk_runtime.events import Event, EventActions
from adk_runtime.flows.llm_flows import functions
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools.function_tool import FunctionTool
from adk_runtime.tools.long_running_tool import LongRunningFunctionTool


def grow(items: list[str], tool_context: ToolContext) -> dict[str, Any]:
    """Append to the list it is given and note it in the state."""
    items.append("new")
    tool_context.state["grown"] = True
    return {"items": items}


async def _context(agent: LlmAgent) -> InvocationContext:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    return InvocationContext(
        invocation_id="inv", session=session, agent=agent, session_service=service
    )


def _calls(*calls: types.FunctionCall) -> Event:
    parts = [types.Part(function_call=call) for call in calls]
    return Event(invocation_id="inv", author="a", content=types.ModelContent(parts))


async def test_calls_run_with_a_copy_of_their_arguments_and_merged_actions() -> None:
    tool = FunctionTool(grow)
    ctx = await _context(LlmAgent(name="a", model=ScriptedModel(), tools=[tool]))
    call = types.FunctionCall(id="c1", name="grow", args={"items": ["old"]})

    event = await functions.handle_function_calls_async(ctx, _calls(call), {"grow": tool})

    assert event is not None
    assert event.author == "a"
    assert call.args == {"items": ["old"]}  # the stored call is left as the model made it
    assert event.get_function_responses()[0].response == {"items": ["old", "new"]}
    assert event.actions.state_delta == {"grown": True}


async def test_filters_pick_the_calls_that_run_and_callbacks_apply() -> None:
    ran: list[str] = []

    def note(name: str) -> str:
        """Note a name."""
        ran.append(name)
        return name

    def before(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"stopped": args["name"]} if args["name"] == "b" else None

    tool = FunctionTool(note)
    agent = LlmAgent(name="a", model=ScriptedModel(), tools=[tool], before_tool_callback=before)
    ctx = await _context(agent)
    calls = [types.FunctionCall(id=f"c{name}", name="note", args={"name": name}) for name in "abc"]

    event = await functions.handle_function_calls_async(
        ctx, _calls(*calls), {"note": tool}, filters={"ca", "cb"}
    )

    assert event is not None
    assert ran == ["a"]
    assert [r.response for r in event.get_function_responses()] == [
        {"result": "a"},
        {"stopped": "b"},
    ]


async def test_an_unknown_tool_is_answered_with_the_flows_error() -> None:
    ctx = await _context(LlmAgent(name="a", model=ScriptedModel()))
    call = types.FunctionCall(id="c1", name="nope", args={})
    event = await functions.handle_function_call_list_async(ctx, [call], {})
    assert event is not None
    response = event.get_function_responses()[0].response
    assert response is not None
    assert "nope" in response["error"]
    with pytest.raises(ValueError, match="nope"):
        functions._get_tool(call, {})


async def test_a_pending_long_running_call_gives_no_event() -> None:
    def start_job() -> None:
        """Start a job; its result comes later."""

    tool = LongRunningFunctionTool(start_job)
    ctx = await _context(LlmAgent(name="a", model=ScriptedModel(), tools=[tool]))
    call = types.FunctionCall(id="c1", name="start_job", args={})
    assert await functions.handle_function_calls_async(ctx, _calls(call), {tool.name: tool}) is None


async def test_the_response_carries_the_tools_response_scheduling() -> None:
    def ping() -> str:
        """Ping."""
        return "pong"

    tool = FunctionTool(ping)
    tool.response_scheduling = types.FunctionResponseScheduling.SILENT
    ctx = await _context(LlmAgent(name="a", model=ScriptedModel(), tools=[tool]))
    event = await functions.handle_function_calls_async(
        ctx, _calls(types.FunctionCall(name="ping", args={})), {"ping": tool}
    )
    assert event is not None
    assert event.get_function_responses()[0].scheduling is types.FunctionResponseScheduling.SILENT


async def test_live_calls_are_refused() -> None:
    ctx = await _context(LlmAgent(name="a", model=ScriptedModel()))
    with pytest.raises(UnsupportedFeatureError):
        await functions.handle_function_calls_live(ctx, _response("c1"), {})


def _response(call_id: str, author: str = "user") -> Event:
    response = types.FunctionResponse(id=call_id, name="f", response={"ok": True})
    return Event(author=author, content=types.UserContent([types.Part(function_response=response)]))


def test_find_matching_function_call() -> None:
    first = _calls(types.FunctionCall(id="c1", name="f", args={}))
    second = _calls(types.FunctionCall(id="c2", name="f", args={}))
    answer = _response("c2")
    assert functions.find_matching_function_call([first, second, answer]) is second
    assert functions.find_matching_function_call([first, answer]) is None
    assert functions.find_matching_function_call([]) is None
    assert functions.find_matching_function_call([first]) is None
    assert functions.find_matching_function_call([first, second], _response("c1")) is first
    assert functions.find_event_by_function_call_id([first, second], "c2") is second


def test_merging_response_events_keeps_parts_and_actions_of_all() -> None:
    one, two = _response("c1", "a"), _response("c2", "b")
    one.actions = EventActions(state_delta={"x": 1})
    two.actions = EventActions(state_delta={"y": 2}, skip_summarization=True)
    merged = functions.merge_parallel_function_response_events([one, two])
    assert [r.id for r in merged.get_function_responses()] == ["c1", "c2"]
    assert merged.author == "a"
    assert merged.timestamp == one.timestamp
    assert merged.actions.state_delta == {"x": 1, "y": 2}
    assert merged.actions.skip_summarization is True
    assert functions.merge_parallel_function_response_events([one]) is one
    with pytest.raises(ValueError, match="no function-response events"):
        functions.merge_parallel_function_response_events([])


async def test_a_sync_tool_runs_on_the_pool_and_an_async_one_on_the_loop() -> None:
    threads: dict[str, str] = {}

    def blocking() -> str:
        """Run in a thread."""
        threads["sync"] = threading.current_thread().name
        return "done"

    async def awaiting() -> str:
        """Run on the loop."""
        threads["async"] = threading.current_thread().name
        return "done"

    ctx = await _context(LlmAgent(name="a", model=ScriptedModel()))
    for func in (blocking, awaiting):
        tool = FunctionTool(func)
        result = await functions._call_tool_in_thread_pool(tool, {}, ToolContext(ctx), 2)
        assert result == "done"
    assert threads["sync"].startswith("adk-runtime-tool")
    assert threads["async"] == threading.current_thread().name
    assert functions._get_tool_thread_pool(2) is functions._get_tool_thread_pool(2)
    assert functions._get_tool_thread_pool(2) is not functions._get_tool_thread_pool(3)
    loop = asyncio.get_running_loop()
    assert set(functions._TOOL_THREAD_POOLS[loop]) == {2, 3}
    assert functions._is_sync_tool(FunctionTool(blocking))
    assert not functions._is_sync_tool(FunctionTool(awaiting))
    assert not functions._is_sync_tool(BaseTool(name="t", description="d"))


async def test_a_tool_error_propagates_from_the_pool_helper() -> None:
    def broken() -> None:
        """Fail."""
        raise RuntimeError("boom")

    ctx = await _context(LlmAgent(name="a", model=ScriptedModel()))
    with pytest.raises(RuntimeError, match="boom"):
        await functions._call_tool_in_thread_pool(FunctionTool(broken), {}, ToolContext(ctx))
