"""Generator tools: a tool whose function yields its progress, then its output.

A function tool may be a generator (``def``/``async def`` with ``yield``), as in google-adk 2.
What it yields is taken in order:

- an :class:`~adk_runtime.events.Event` (``Event(message="Searching…")``) is a progress event:
  it is committed (as a new event, with an id of its own) and yielded upstream at once,
  authored by the tool, and the tool resumes only after the commit. The state the call wrote
  before that ``yield`` is committed with it. The model never sees these events; the client
  does. Its ``node_info.path`` is ``<agent>/<tool>@<call id>``;
- a :class:`~adk_runtime.events.RequestInput` asks the user for input: an
  ``adk_request_input`` call (long-running, the tool's) is committed and the invocation
  pauses; the generator is closed there, and the call has no response yet. When the client
  answers, the call runs again from the start with the answer in
  ``tool_context.resume_inputs[interrupt_id]`` (``adk_runtime.agents._input_requests``);
- any other value is the call's output, the function response the model gets (a dict, or any
  value as ``{"result": ...}``); one output only, a second fails the call. The generator runs to
  its end; one that yields no output answers ``{"result": None}``.

A tool that makes a run of its own (a node tool's workflow) yields that run's events as
:class:`RunEvent` items, committed as they come under the call's path and in its scope, and,
when the run waits for the user's answer to a question it committed, :data:`PAUSED`.

An exception in the generator fails the call as a tool that raises does (``{"error": ...}``),
and what the call wrote since its last progress event is discarded; progress already committed
stays. A sync generator steps in a worker thread, never on the event loop.

The flow runs a call list with an ``emit`` hook (:class:`CallStream`): each progress event goes
through the flow to the Runner, which commits it before the tool resumes.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeAlias

from google.genai import types

from adk_runtime import _callbacks
from adk_runtime.agents._storable import storable_strings, unstorable
from adk_runtime.errors import SerializationError
from adk_runtime.events import Event, EventActions, RequestInput
from adk_runtime.events.event import event_to_json
from adk_runtime.tools._request_input_tool import REQUEST_INPUT_FUNCTION_CALL_NAME

if TYPE_CHECKING:
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.tool_context import ToolContext

__all__ = [
    "PAUSED",
    "CallStream",
    "Emit",
    "RunEvent",
    "call_path",
    "caller_of",
    "closing_items",
    "drive",
    "is_generator",
    "is_progress_event",
]

Emit: TypeAlias = Callable[[Event], Awaitable[None]]
"""Hand a progress event to the flow; returns once it is committed."""

_NO_OUTPUT = object()
_NO_ONE_ANSWERS = (
    "Tool {!r} asked for input (RequestInput), which needs the LLM flow: run it through an agent."
)


class _Paused:
    """What a generator tool that asked for input returns: no response yet."""

    def __repr__(self) -> str:
        return "PAUSED"


PAUSED: Any = _Paused()
"""The result of a call paused on a :class:`RequestInput` (it has no function response).

A tool that asks through a run of its own (a node tool's workflow) yields it once the run's
question is committed (as a :class:`RunEvent`): its call then pauses the same way.
"""


@dataclass(frozen=True)
class RunEvent:
    """An event of a run the tool made (a node tool's workflow), to commit as it is.

    The tool has made it the call's: the caller's invocation and branch, the call's scope
    (``isolation_scope`` = the call's id, so the calling agent never sees it) and a path under
    the call's (:func:`call_path`), where the call's next run reads it back. It carries no
    state: what the run writes goes through the tool context, committed with the event (or
    with the response when nothing commits progress, and then the event is dropped).
    """

    event: Event


def call_path(agent_name: str, tool_name: str, call_id: str) -> str:
    """The path of a call's progress events (and the root of its run's events)."""
    return f"{agent_name}/{tool_name}@{call_id}"


def is_generator(value: Any) -> bool:
    """Whether a tool handed back a generator (it was a generator function) to drive."""
    return inspect.isgenerator(value) or inspect.isasyncgen(value)


async def drive(
    produced: Generator[Any, None, Any] | AsyncGenerator[Any, None],
    *,
    agent_name: str,
    tool: BaseTool,
    tool_context: ToolContext,
    emit: Emit | None,
) -> Any:
    """Run a generator tool to its end: emit its progress events, return its output.

    ``emit`` None (google-adk's ``handle_function_calls_async``, which returns one event)
    drops the progress events (and a run's events); the state written before them still
    rides on the response.

    Returns :data:`PAUSED` when the tool asked for input (the request is emitted, the
    generator closed).

    Raises:
        ValueError: The tool yielded a second output, or a progress event that cannot be
            stored, or asked for input where no one can answer (``emit`` None) (the call then
            fails as a tool that raises does).
    """
    output: Any = _NO_OUTPUT
    async with closing_items(produced) as items:
        async for item in items:
            if isinstance(item, RunEvent | RequestInput) or item is PAUSED:
                if await _hand_on(item, agent_name, tool, tool_context, emit):
                    return PAUSED
                continue
            if not isinstance(item, Event):
                if output is not _NO_OUTPUT:
                    raise ValueError(
                        f"Tool {tool.name!r} yielded a second output; a generator tool yields "
                        "one output (its function response) and any number of Events."
                    )
                output = item
                continue
            _check_progress(item, tool)
            if emit is not None:
                await emit(_progress_event(item, agent_name, tool, tool_context))
    return None if output is _NO_OUTPUT else output


async def _hand_on(
    item: Any, agent_name: str, tool: BaseTool, tool_context: ToolContext, emit: Emit | None
) -> bool:
    """Emit a run's event, or ask the user; True when the call pauses there (it asked)."""
    if isinstance(item, RunEvent):
        if emit is not None:
            await emit(_run_event(item.event, tool, tool_context))
        return False
    if emit is None:
        raise ValueError(_NO_ONE_ANSWERS.format(tool.name))
    if isinstance(item, RequestInput):
        await emit(_progress_event(request_event(item), agent_name, tool, tool_context))
    return True


def is_progress_event(event: Event) -> bool:
    """Whether ``event`` is a generator tool's progress event or input request.

    The model never sees those. Their path is ``<agent>/<tool>@<call id>``: an agent's name
    has no ``@``, where every segment of google-adk's workflow paths has a run id.
    """
    agent, slash, node = event.node_info.path.partition("/")
    return (
        bool(slash and agent)
        and "@" not in agent
        and "/" not in node
        and event.node_info.name == event.author
    )


TASK_QUESTION_PREFIX = "wf_task_input:"
"""The id prefix of the question a ``mode="task"`` workflow agent node asks when it answers
in text (``adk_runtime.workflow._interrupts.task_question``)."""


def is_task_question(call: types.FunctionCall) -> bool:
    """Whether ``call`` is a task agent node's question to the user.

    The model never sees it: the agent's own text is the question, the user's reply its answer.
    """
    return call.name == REQUEST_INPUT_FUNCTION_CALL_NAME and (call.id or "").startswith(
        TASK_QUESTION_PREFIX
    )


def caller_of(event: Event) -> tuple[str, str] | None:
    """The agent whose call a tool's event belongs to, and that call's id.

    A generator tool's progress event or input request, or an event of a run the call made
    (:class:`RunEvent`: its scope is the call's id, its path under the call's).
    """
    if is_progress_event(event):
        return event.node_info.path.partition("/")[0], event.node_info.run_id
    return run_caller(event)


def run_caller(event: Event) -> tuple[str, str] | None:
    """The agent and call id of an event of a run a call made (:class:`RunEvent`), if it is."""
    scope = event.isolation_scope
    if scope is None:
        return None
    agent, _, rest = event.node_info.path.partition("/")
    step, below, _ = rest.partition("/")
    call_id = scope.partition("/")[0]  # the run's own scope, if any, follows the call's id
    if not (agent and below and call_id) or "@" in agent or not step.endswith("@" + call_id):
        return None
    return agent, call_id


def request_event(request: RequestInput) -> Event:
    """The event asking the client for input: a long-running ``adk_request_input`` call."""
    # the arguments google-adk's clients read (``response_schema`` keeps its snake case there)
    args = {
        "interruptId": request.interrupt_id,
        "message": request.message,
        "payload": request.payload,
        "response_schema": request.response_json_schema(),
    }
    call = types.FunctionCall(
        id=request.interrupt_id, name=REQUEST_INPUT_FUNCTION_CALL_NAME, args=args
    )
    return Event(
        content=types.Content(role="model", parts=[types.Part(function_call=call)]),
        long_running_tool_ids={request.interrupt_id},
    )


_PROGRESS_ACTIONS = frozenset({"state_delta", "artifact_delta"})


def _check_progress(event: Event, tool: BaseTool) -> None:
    """Refuse (ValueError) a progress event that would act: it reports, and writes state.

    Control actions (a transfer, an escalation, a rewind, a compaction, a checkpoint…) belong
    to the call's ``tool_context.actions``, which the response carries; function calls and
    responses to the model and the client belong to the runtime.
    """
    acting = set(event.actions.model_dump(exclude_defaults=True)) - _PROGRESS_ACTIONS
    if acting:
        raise ValueError(
            f"Tool {tool.name!r} yielded an event with {sorted(acting)}: a progress event "
            "carries only state and artifact changes; set the others on tool_context.actions."
        )
    if event.get_function_calls() or event.get_function_responses() or event.long_running_tool_ids:
        raise ValueError(
            f"Tool {tool.name!r} yielded an event with function calls or responses: a tool "
            "asks the user with RequestInput, and answers the model with its output."
        )


def _progress_event(event: Event, agent_name: str, tool: BaseTool, context: ToolContext) -> Event:
    """``event`` as the flow commits it, or ValueError when it cannot be stored.

    It is the tool's, in this invocation and branch, with the state the call wrote so far.
    """
    ctx = context.invocation_context
    written = context.take_changes()
    actions = event.actions.model_copy(deep=True)
    actions.merge(written)
    problem = unstorable(None, actions.state_delta)
    if problem is not None:
        raise ValueError(f"Tool {tool.name!r} yielded an event: {problem}")
    progress = event.model_copy(
        update={
            # a new event each time: the same Event yielded twice, or one already stored, is
            # not a retry of a stored one
            "id": Event.new_id(),
            "invocation_id": ctx.invocation_id,
            "author": tool.name,
            "branch": ctx.branch,
            "content": storable_strings(event.content) if event.content else None,
            "actions": actions,
            "partial": None,
            "node_info": event.node_info.model_copy(
                update={"path": call_path(agent_name, tool.name, context.function_call_id or "")}
            ),
        }
    )
    try:  # what the Runner commits (its temp: keys are never stored)
        event_to_json(progress.model_copy(update={"actions": EventActions()}))
    except SerializationError as exc:
        raise ValueError(
            f"Tool {tool.name!r} yielded an event that cannot be stored ({exc.path}: {exc.reason})."
        ) from None
    return progress


def _run_event(event: Event, tool: BaseTool, context: ToolContext) -> Event:
    """A run's event as the flow commits it: with the state the call wrote so far."""
    actions = event.actions.model_copy(deep=True)
    actions.merge(context.take_changes())
    problem = unstorable(None, actions.state_delta)
    if problem is not None:
        raise ValueError(f"Tool {tool.name!r}: an event of its run: {problem}")
    return event.model_copy(update={"actions": actions})


class closing_items:
    """Iterate a sync or async generator; close it however the iteration ends."""

    def __init__(self, produced: Generator[Any, None, Any] | AsyncGenerator[Any, None]) -> None:
        self.produced = produced

    async def __aenter__(self) -> AsyncIterator[Any]:
        produced = self.produced
        return produced if isinstance(produced, AsyncGenerator) else _stepped(produced)

    async def __aexit__(self, *exc: object) -> None:
        produced = self.produced
        if isinstance(produced, AsyncGenerator):
            await produced.aclose()
        else:
            await _callbacks.invoke(produced.close)


async def _stepped(produced: Generator[Any, None, Any]) -> AsyncIterator[Any]:
    """A sync generator's items, each ``next`` in a worker thread."""
    done = object()
    while True:
        item = await _callbacks.invoke(lambda: next(produced, done))
        if item is done:
            return
        yield item


class CallStream:
    """The progress events of a call list as they come, then (``response``) its response.

    Iterate it: each event is committed by whoever consumes this flow before the tool that
    yielded it resumes. ``response`` is the call list's function-response event (or None)
    once the iteration has ended; ``paused`` says whether a tool asked for input (the
    invocation then pauses after the response).
    """

    def __init__(self, run: Callable[[Emit], Awaitable[Event | None]]) -> None:
        self._run = run
        self.response: Event | None = None
        self.paused = False

    def end_invocation_if_paused(self, ctx: InvocationContext) -> None:
        """End the invocation after the response when a tool asked for input (it pauses)."""
        ctx.end_invocation = ctx.end_invocation or self.paused

    async def events(self) -> AsyncGenerator[Event, None]:
        """Yield each progress event; the tool resumes when the consumer asks for the next."""
        queue: asyncio.Queue[tuple[Event, asyncio.Future[None]] | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        async def emit(event: Event) -> None:
            committed: asyncio.Future[None] = loop.create_future()
            queue.put_nowait((event, committed))
            await committed

        task = asyncio.ensure_future(self._run(emit))
        task.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (item := await queue.get()) is not None:
                event, committed = item
                waiting = event.long_running_tool_ids or set()
                self.paused |= any(call.id in waiting for call in event.get_function_calls())
                yield event
                committed.set_result(None)
            self.response = await task
        finally:
            if not task.done():  # the consumer stopped (or a commit failed): stop the calls
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
