"""Run the function calls of a model response and build the one function-response event."""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, TypeAlias

from google.genai import types

from adk_runtime import _callbacks, telemetry
from adk_runtime.agents._generator_tools import PAUSED, CallStream, Emit, drive, is_generator
from adk_runtime.agents._storable import unstorable
from adk_runtime.agents._tool_media import split_media
from adk_runtime.agents._tool_pool import pool_for, run_tool
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.errors import PluginError
from adk_runtime.events import Event, EventActions
from adk_runtime.events.tool_confirmation import ToolConfirmation
from adk_runtime.models._call_ids import CLIENT_CALL_ID_PREFIX
from adk_runtime.platform import uuid as platform_uuid

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent

__all__ = [
    "AfterToolCallback",
    "BeforeToolCallback",
    "OnToolErrorCallback",
    "assign_call_ids",
    "calls_content",
    "long_running_ids",
    "missing_tool_message",
    "rerun_calls",
    "rerun_events",
    "run_call_list",
    "run_function_calls",
    "stream_calls",
]

logger = logging.getLogger(__name__)

_ToolResult: TypeAlias = dict[str, Any] | None
_BeforeTool: TypeAlias = Callable[..., Awaitable[_ToolResult] | _ToolResult]
BeforeToolCallback: TypeAlias = _BeforeTool | Sequence[_BeforeTool]
AfterToolCallback: TypeAlias = _BeforeTool | Sequence[_BeforeTool]
OnToolErrorCallback: TypeAlias = _BeforeTool | Sequence[_BeforeTool]


def calls_content(calls: Sequence[types.FunctionCall]) -> types.Content:
    """A model turn made of ``calls`` alone (to run them apart from the rest of a response)."""
    return types.Content(role="model", parts=[types.Part(function_call=c) for c in calls])


def assign_call_ids(event: Event) -> None:
    """Give every function call without an id one minted by the runtime (``adk-…``)."""
    for call in event.get_function_calls():
        if not call.id:
            call.id = CLIENT_CALL_ID_PREFIX + platform_uuid.new_uuid()


def long_running_ids(event: Event, tools: dict[str, BaseTool]) -> set[str] | None:
    """The ids of the event's calls to long-running tools, or None when there are none."""
    ids = {
        call.id
        for call in event.get_function_calls()
        if call.id and call.name in tools and tools[call.name].is_long_running
    }
    return ids or None


async def run_function_calls(
    agent: LlmAgent,
    ctx: InvocationContext,
    call_event: Event,
    tools: dict[str, BaseTool],
    confirmations: dict[str, ToolConfirmation] | None = None,
    emit: Emit | None = None,
    inputs: dict[str, dict[str, Any]] | None = None,
) -> Event | None:
    """Run the calls of ``call_event``: :func:`run_call_list` on them."""
    calls = call_event.get_function_calls()
    return await run_call_list(agent, ctx, calls, tools, confirmations, emit, inputs)


def stream_calls(
    agent: LlmAgent,
    ctx: InvocationContext,
    call_event: Event,
    tools: dict[str, BaseTool],
    *,
    confirmations: dict[str, ToolConfirmation] | None = None,
    inputs: dict[str, dict[str, Any]] | None = None,
) -> CallStream:
    """The calls of ``call_event`` as a :class:`CallStream`: progress events, then response."""
    return CallStream(
        lambda emit: run_function_calls(agent, ctx, call_event, tools, confirmations, emit, inputs)
    )


async def rerun_calls(
    agent: LlmAgent,
    ctx: InvocationContext,
    calls: Sequence[types.FunctionCall],
    *,
    confirmations: dict[str, ToolConfirmation] | None = None,
    inputs: dict[str, dict[str, Any]] | None = None,
) -> tuple[Event, CallStream]:
    """Stored ``calls`` of ``agent`` run again, with the agent's tools of now.

    Returns the call event they are run as (never committed) and its :class:`CallStream`.
    """
    call_event = Event(
        invocation_id=ctx.invocation_id,
        author=agent.name,
        branch=ctx.branch,
        content=calls_content(calls),
    )
    tools = {tool.name: tool for tool in await agent.canonical_tools(ReadonlyContext(ctx))}
    stream = stream_calls(agent, ctx, call_event, tools, confirmations=confirmations, inputs=inputs)
    return call_event, stream


async def rerun_events(
    ctx: InvocationContext,
    stream: CallStream,
    ask_again: Callable[[Event], Event | None] | None = None,
) -> AsyncGenerator[Event, None]:
    """The events of calls run again: their progress, then a new request, then the response.

    ``ask_again(response)`` is the request a tool makes again (e.g. its credential was
    refused), or None (always None without ``ask_again``); a new request pauses the
    invocation, as does a generator tool that asked for input.
    """
    async with aclosing(stream.events()) as progress:  # a generator tool's progress
        async for event in progress:
            yield event
    response_event = stream.response
    stream.end_invocation_if_paused(ctx)  # a generator tool asked for input
    if response_event is None:
        return
    again = ask_again(response_event) if ask_again is not None else None
    if again is not None:  # the tool asks again: pause again
        ctx.end_invocation = True
        yield again
    yield response_event


async def run_call_list(
    agent: LlmAgent,
    ctx: InvocationContext,
    calls: Sequence[types.FunctionCall],
    tools: dict[str, BaseTool],
    confirmations: dict[str, ToolConfirmation] | None = None,
    emit: Emit | None = None,
    inputs: dict[str, dict[str, Any]] | None = None,
) -> Event | None:
    """Run the calls concurrently; return one event with every response and merged actions.

    A call that fails (unknown tool, a tool or callback that raises) is answered with an
    ``{"error": ...}`` response the model sees, and what it wrote is discarded; a plugin hook
    that raises (``PluginError``) ends the invocation instead, and the other calls still
    running are cancelled. Each call gets its own deep copy of its arguments, so a tool
    that changes them leaves the stored call as the model made it.
    ``confirmations`` (by call id) are the user's answers to the calls' confirmation requests.
    ``emit`` takes the progress events of generator tools (see
    :mod:`adk_runtime.agents._generator_tools`); without it they are dropped. ``inputs``
    (by call id) are the user's answers to the calls' input requests
    (``tool_context.resume_inputs``). A call that asks for input has no response.
    Returns None when no call produced a response or an action.
    """
    confirmations = confirmations or {}
    inputs = inputs or {}
    response_id = Event.new_id()  # the tool spans name the event their responses go into
    runs = [
        asyncio.ensure_future(
            _run_one(
                agent,
                ctx,
                call,
                tools,
                ToolContext(
                    ctx,
                    function_call_id=call.id,
                    tool_confirmation=confirmations.get(call.id or ""),
                    resume_inputs=inputs.get(call.id or ""),
                ),
                emit,
                response_id,
            )
        )
        for call in calls
    ]
    try:
        results = await asyncio.gather(*runs)
    except BaseException:
        # The invocation ends (a plugin hook raised, or it was cancelled): the other calls
        # must not go on running, and writing, after it.
        for run in runs:
            run.cancel()
        await asyncio.gather(*runs, return_exceptions=True)
        raise
    parts: list[types.Part] = []
    texts: list[types.Part] = []
    actions = EventActions()
    for part, call_actions, text in results:
        actions.merge(call_actions)
        if part is not None:
            parts.append(part)
        if text is not None:
            texts.append(types.Part(text=text))
    parts.extend(texts)
    if not parts and actions.is_empty():
        return None
    return Event(
        id=response_id,
        invocation_id=ctx.invocation_id,
        author=agent.name,
        branch=ctx.branch,
        content=types.Content(role="user", parts=parts) if parts else None,
        actions=actions,
    )


async def _run_one(
    agent: LlmAgent,
    ctx: InvocationContext,
    call: types.FunctionCall,
    tools: dict[str, BaseTool],
    tool_context: ToolContext,
    emit: Emit | None = None,
    response_id: str | None = None,
) -> tuple[types.Part | None, EventActions, str | None]:
    name = call.name or ""
    tool = tools.get(name)
    missing: str | None = None
    if tool is None:  # the callbacks still see the call, through a stand-in tool
        missing = missing_tool_message(name, tools)
        tool = BaseTool(name=name or "<unnamed>", description="No such tool.")
    try:
        response: Any = await _call_tool(
            agent,
            tool,
            copy.deepcopy(dict(call.args or {})),
            tool_context,
            missing=missing,
            emit=emit,
            response_id=response_id,
        )
    except PluginError:
        raise  # a plugin's hook raised: that stops the run, as every plugin hook does
    except Exception as exc:
        logger.warning("Tool %r failed: %s", name, type(exc).__name__)
        tool_context.discard_changes()
        response = {"error": f"{type(exc).__name__}: {exc}"}
    if (response is None and tool.is_long_running) or response is PAUSED:
        return None, tool_context.actions, None
    response, media = split_media(tool, response)
    problem = unstorable(response, tool_context.actions.state_delta)
    if problem is not None:
        # Committing it would fail the turn: the call fails instead, as if the tool raised.
        logger.warning("Tool %r: %s", name, problem)
        tool_context.discard_changes()
        response, media = {"error": problem}, []
    text = _shown_answer(tool, response, tool_context)
    if not isinstance(response, dict):
        response = {"result": response}
    part = types.Part(
        function_response=types.FunctionResponse(
            id=call.id,
            name=name,
            response=response,
            parts=media or None,
            scheduling=tool.response_scheduling,
        )
    )
    return part, tool_context.actions, text


def missing_tool_message(name: str | None, tools: dict[str, BaseTool]) -> str:
    """What the model is told when it calls a tool the agent does not have."""
    return f"There is no tool {name!r}; available: {sorted(tools)}."


def _shown_answer(tool: BaseTool, response: Any, tool_context: ToolContext) -> str | None:
    """The answer of a call that ends the turn, as text (``BaseTool.shows_answer_when_final``).

    The function response is then the last thing the client sees, and clients that show
    only text would show nothing; as in google-adk, the answer is added as a text part too.
    """
    if not (tool.shows_answer_when_final and tool_context.actions.skip_summarization):
        return None
    if response is None or response == "" or response == {"result": None}:
        return None
    if isinstance(response, dict) and "error" in response:
        return None
    if isinstance(response, str):
        return response
    return json.dumps(response, ensure_ascii=False, default=str)


async def _call_tool(
    agent: LlmAgent,
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    *,
    missing: str | None = None,
    emit: Emit | None = None,
    response_id: str | None = None,
) -> Any:
    """Before callbacks, the tool, error callbacks, after callbacks: the call's response.

    ``missing`` (the model named no tool of the agent) says why there is no tool to run: a
    before callback may still answer; else the error callbacks get a ``ValueError`` with that
    text and may answer; else the text is the error the model gets. After callbacks do not
    run then (no tool ran). A generator tool is run to its end (its progress events go to
    ``emit``); its output is the response.
    """
    if missing is not None:
        # No span and no latency series for a name the model made up (unbounded names).
        response = await _before_tool(agent, tool, args, tool_context)
        if response is None:
            response = await _on_tool_error(agent, tool, args, tool_context, ValueError(missing))
            return {"error": missing} if response is None else response
        return await _after_tool(agent, tool, args, tool_context, response)
    # The whole call, callbacks included, is the call's span, as in google-adk.
    with telemetry.tool_span(
        tool.name,
        tool.description,
        tool_context.function_call_id,
        args=args,
        event_id=response_id,
    ) as call:
        response = await _before_tool(agent, tool, args, tool_context)
        if response is not None:
            call.answered_by("before_tool_callback")
        else:
            try:
                response = await _execute(agent, tool, args, tool_context, emit)
            except Exception as exc:
                response = await _on_tool_error(agent, tool, args, tool_context, exc)
                if response is None:
                    raise
                call.answered_by("on_tool_error_callback")
        if response is PAUSED:  # asked the user: no result for the after callbacks yet
            return response
        response = await _after_tool(agent, tool, args, tool_context, response)
        call.result(response)
        return response


async def _tool_hook(
    plugin_hook: Callable[..., Awaitable[Any]],
    callbacks: Any,
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    **extra: Any,
) -> Any:
    """The first answer of the plugins' ``plugin_hook``, then of the agent's ``callbacks``.

    google-adk names the arguments differently for the two: plugins get ``tool_args`` and
    ``result``, agent callbacks ``args`` and ``tool_response``; ``extra`` goes to both.
    """
    agent_extra = {("tool_response" if k == "result" else k): v for k, v in extra.items()}
    return await _callbacks.first_answer(
        plugin_hook(tool=tool, tool_args=args, tool_context=tool_context, **extra),
        callbacks,
        tool=tool,
        args=args,
        tool_context=tool_context,
        **agent_extra,
    )


async def _before_tool(
    agent: LlmAgent, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
) -> Any:
    """The response a before-tool callback gives instead of the tool, or None."""
    plugins = tool_context.invocation_context.plugin_manager
    return await _tool_hook(
        plugins.run_before_tool_callback, agent.before_tool_callback, tool, args, tool_context
    )


async def _after_tool(
    agent: LlmAgent, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, response: Any
) -> Any:
    """The response as the after callbacks leave it (the first that returns one replaces it)."""
    plugins = tool_context.invocation_context.plugin_manager
    replaced = await _tool_hook(
        plugins.run_after_tool_callback,
        agent.after_tool_callback,
        tool,
        args,
        tool_context,
        result=response,
    )
    return response if replaced is None else replaced


async def _execute(
    agent: LlmAgent,
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    emit: Emit | None,
) -> Any:
    """Run the tool itself; a generator tool is run to its end and its output returned."""
    pool = pool_for(tool_context.invocation_context.run_config.tool_thread_pool_config)
    response = await run_tool(tool, args, tool_context, pool)
    if not is_generator(response):
        return response
    with _callbacks.sync_calls_on(pool):
        return await drive(
            response, agent_name=agent.name, tool=tool, tool_context=tool_context, emit=emit
        )


async def _on_tool_error(
    agent: LlmAgent, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, exc: Exception
) -> Any:
    """The first response an ``on_tool_error_callback`` returns for ``exc``, else None."""
    plugins = tool_context.invocation_context.plugin_manager
    return await _tool_hook(
        plugins.run_on_tool_error_callback,
        agent.on_tool_error_callback,
        tool,
        args,
        tool_context,
        error=exc,
    )
