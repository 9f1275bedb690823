"""``google.adk.flows.llm_flows.functions`` → here: function-call ids and running the calls.

A model may return function calls without ids; the runtime then mints one (prefixed
:data:`AF_FUNCTION_CALL_ID_PREFIX`) so the response can be paired with its call, and strips
those ids again from what it sends to the model.

:func:`handle_function_calls_async` runs a model response's calls exactly as an LLM agent's
flow does (``adk_runtime.agents._functions``: callbacks, plugins, concurrency, error
answers); the other helpers find a response's call in a history, merge response events and
run one tool on the tool thread pool.
"""

from __future__ import annotations

import inspect
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime import _callbacks
from adk_runtime.agents import _tool_pool
from adk_runtime.agents._auth import (
    REQUEST_EUC_FUNCTION_CALL_NAME,
    build_auth_request_event,
    generate_auth_event,
)
from adk_runtime.agents._confirmation import (
    REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
    generate_request_confirmation_event,
)
from adk_runtime.agents._functions import assign_call_ids, missing_tool_message, run_call_list
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.errors import UnsupportedFeatureError
from adk_runtime.events import Event, EventActions
from adk_runtime.events._calls import calling_event
from adk_runtime.models._call_ids import CLIENT_CALL_ID_PREFIX
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.tools._request_input_tool import REQUEST_INPUT_FUNCTION_CALL_NAME

if TYPE_CHECKING:
    import asyncio

    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.events.tool_confirmation import ToolConfirmation

__all__ = [
    "AF_FUNCTION_CALL_ID_PREFIX",
    "REQUEST_CONFIRMATION_FUNCTION_CALL_NAME",
    "REQUEST_EUC_FUNCTION_CALL_NAME",
    "REQUEST_INPUT_FUNCTION_CALL_NAME",
    "build_auth_request_event",
    "find_event_by_function_call_id",
    "find_matching_function_call",
    "generate_auth_event",
    "generate_client_function_call_id",
    "generate_request_confirmation_event",
    "get_long_running_function_calls",
    "handle_function_call_list_async",
    "handle_function_calls_async",
    "handle_function_calls_live",
    "merge_parallel_function_response_events",
    "populate_client_function_call_id",
    "remove_client_function_call_id",
]

AF_FUNCTION_CALL_ID_PREFIX = CLIENT_CALL_ID_PREFIX


def generate_client_function_call_id() -> str:
    """A new runtime-minted function-call id (``adk-`` and a random UUID)."""
    return AF_FUNCTION_CALL_ID_PREFIX + platform_uuid.new_uuid()


def populate_client_function_call_id(model_response_event: Event) -> None:
    """Give each function call of the event that has no id a runtime-minted one (in place)."""
    assign_call_ids(model_response_event)


def remove_client_function_call_id(content: types.Content | None) -> None:
    """Clear the runtime-minted ids of the content's function calls and responses (in place).

    Ids the model issued itself are kept.
    """
    for part in (content.parts if content else None) or []:
        for item in (part.function_call, part.function_response):
            if item is not None and item.id and item.id.startswith(AF_FUNCTION_CALL_ID_PREFIX):
                item.id = None


def get_long_running_function_calls(
    function_calls: Iterable[types.FunctionCall], tools_dict: Mapping[str, BaseTool]
) -> set[str]:
    """The ids of the calls that go to long-running tools."""
    ids: set[str] = set()
    for call in function_calls:
        tool = tools_dict.get(call.name or "")
        if call.id and tool is not None and tool.is_long_running:
            ids.add(call.id)
    return ids


async def handle_function_calls_async(
    invocation_context: InvocationContext,
    function_call_event: Event,
    tools_dict: dict[str, BaseTool],
    filters: set[str] | None = None,
    tool_confirmation_dict: dict[str, ToolConfirmation] | None = None,
) -> Event | None:
    """Run the function calls of ``function_call_event`` as the context's agent would.

    Args:
        invocation_context: The invocation; its ``agent`` (an ``LlmAgent``) supplies the
            tool callbacks and names the response event.
        function_call_event: The model response holding the calls.
        tools_dict: The tools the calls may name, by name.
        filters: When given, only the calls whose ids are in it run.
        tool_confirmation_dict: The user's answers to confirmation requests, by call id.

    Returns:
        One event with every response and the calls' merged actions, or None when no call
        answered (long-running tools still working) and none changed anything.
    """
    return await handle_function_call_list_async(
        invocation_context,
        function_call_event.get_function_calls(),
        tools_dict,
        filters,
        tool_confirmation_dict,
    )


async def handle_function_call_list_async(
    invocation_context: InvocationContext,
    function_calls: Sequence[types.FunctionCall],
    tools_dict: dict[str, BaseTool],
    filters: set[str] | None = None,
    tool_confirmation_dict: dict[str, ToolConfirmation] | None = None,
) -> Event | None:
    """Run ``function_calls`` (see :func:`handle_function_calls_async`)."""
    from adk_runtime.agents.llm_agent import LlmAgent

    agent = invocation_context.agent
    if not isinstance(agent, LlmAgent):
        raise TypeError(
            f"Function calls run for an LlmAgent; the invocation's agent is a "
            f"{type(agent).__name__}."
        )
    calls = [call for call in function_calls if filters is None or call.id in filters]
    return await run_call_list(agent, invocation_context, calls, tools_dict, tool_confirmation_dict)


async def handle_function_calls_live(
    invocation_context: InvocationContext,
    function_call_event: Event,
    tools_dict: dict[str, BaseTool],
) -> Event | None:
    """The Live API's way of running calls; refused here.

    Raises:
        UnsupportedFeatureError: Always: adk_runtime does not implement the Live API; use
            :func:`handle_function_calls_async`.
    """
    raise UnsupportedFeatureError(
        "handle_function_calls_live belongs to google-adk's Live API (bidirectional "
        "streaming), which adk_runtime does not implement; use handle_function_calls_async."
    )


def find_event_by_function_call_id(events: Sequence[Event], function_call_id: str) -> Event | None:
    """The latest event of ``events`` holding a function call with that id, or None."""
    return calling_event(events, function_call_id)


def find_matching_function_call(
    events: Sequence[Event], function_response_event: Event | None = None
) -> Event | None:
    """The event holding the call that a function-response event answers, or None.

    Args:
        events: The history to search (a session's events).
        function_response_event: The response event; default: the last of ``events``. The
            call of its first response is looked for (the event itself is not searched).
    """
    if not events:
        return None
    answer = events[-1] if function_response_event is None else function_response_event
    responses = answer.get_function_responses()
    if not responses or not responses[0].id:
        return None
    searched = events[:-1] if events[-1].id == answer.id else events
    return find_event_by_function_call_id(searched, responses[0].id)


def merge_parallel_function_response_events(function_response_events: Sequence[Event]) -> Event:
    """One event from the response events of calls made together.

    The parts are kept in order; the actions are merged as the flow merges the actions of
    concurrent calls (later values win, every UI widget kept). Invocation id, author,
    branch and timestamp come from the first event; a single event comes back as it is.

    Raises:
        ValueError: ``function_response_events`` is empty.
    """
    if not function_response_events:
        raise ValueError("There are no function-response events to merge.")
    first = function_response_events[0]
    if len(function_response_events) == 1:
        return first
    parts: list[types.Part] = []
    actions = EventActions()
    for event in function_response_events:
        parts.extend(event.content.parts or [] if event.content else [])
        actions.merge(event.actions)
    merged = Event(
        invocation_id=first.invocation_id,
        author=first.author,
        branch=first.branch,
        content=types.Content(role="user", parts=parts),
        actions=actions,
    )
    merged.timestamp = first.timestamp
    return merged


def _get_tool(function_call: types.FunctionCall, tools_dict: Mapping[str, BaseTool]) -> BaseTool:
    """The tool a call names.

    Raises:
        ValueError: No tool has that name (the message is the one the flow sends the model).
    """
    tool = tools_dict.get(function_call.name or "")
    if tool is None:
        raise ValueError(missing_tool_message(function_call.name, dict(tools_dict)))
    return tool


_TOOL_THREAD_POOLS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[int, ThreadPoolExecutor]
] = _tool_pool.pools
_TOOL_THREAD_POOL_LOCK: threading.Lock = _tool_pool.pools_lock


def _get_tool_thread_pool(max_workers: int = 4) -> ThreadPoolExecutor:
    """The running event loop's pool of ``max_workers`` tool threads.

    Raises:
        RuntimeError: No event loop is running.
    """
    return _tool_pool.pool_of_size(max_workers)


def _is_sync_tool(tool: BaseTool) -> bool:
    """True when the tool wraps a plain (not async) function in ``func``."""
    func = getattr(tool, "func", None)
    if func is None:
        return False
    return not (_callbacks.is_async_callable(func) or inspect.isasyncgenfunction(func))


async def _call_tool_in_thread_pool(
    tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, max_workers: int = 4
) -> Any:
    """Run ``tool`` as the flow does under ``ToolThreadPoolConfig(max_workers=...)``.

    The sync callables it runs (a sync function's body) go to the loop's pool of
    ``max_workers`` threads, with the caller's context variables; async tools run on the
    event loop, where the services the tool context reaches are bound. The tool's
    exceptions propagate.
    """
    pool = _tool_pool.pool_of_size(max_workers)
    return await _tool_pool.run_tool(tool, args, tool_context, pool)
