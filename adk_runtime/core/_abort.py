"""Stopping an invocation on request, and sealing what it leaves in the log.

A caller passes ``abort_signal`` (an ``asyncio.Event``) to ``Runner.run_async``, or code of
the invocation (a tool, a callback, another thread) calls ``InvocationContext.abort()``. The
Runner then stops the agent: at once while it waits on a model or a tool (the wait is
cancelled in the turn's own task), otherwise at the next event boundary, so an event being
committed is always committed whole. It then *seals* the invocation in the log:

- each function call of the invocation that has no response gets an error response,
  grouped by the author, branch and delegated task (``isolation_scope``) of the event that
  made the call, so the model later sees that the call was stopped instead of the call
  vanishing (a task delegated in the invocation is closed that way too);
- with no such call, one content-less event of the root agent records the stop.

Every sealing event carries ``error_code="INVOCATION_ABORTED"`` (google-adk's code, so each
runtime recognises the other's). They are committed and yielded like any event, and the
invocation is closed: it is not listed as interrupted and never resumed, so a side-effecting
tool the user stopped does not run again. Work already handed to a worker thread (a
synchronous tool) cannot be interrupted; its result is dropped.
"""

from __future__ import annotations

import asyncio
import collections
import threading
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.events import Event

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext

__all__ = ["ABORTED_CODE", "AbortState", "sealing_events", "until_aborted"]

ABORTED_CODE = "INVOCATION_ABORTED"
ABORTED_MESSAGE = "The client stopped the invocation before this step finished."
_INTERRUPT = "adk_runtime: invocation aborted"


class AbortState:
    """One invocation's abort request, shared by the copies of its context."""

    __slots__ = ("_interrupt", "_loop", "_thread", "aborted", "signal")

    def __init__(self) -> None:
        self.aborted = False
        self.signal: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None
        self._interrupt: Callable[[], None] | None = None

    def attach(self, signal: asyncio.Event | None) -> None:
        """Watch the caller's ``signal`` too (None: only ``request`` stops the invocation)."""
        self.signal = signal

    @property
    def requested(self) -> bool:
        """Whether the invocation was asked to stop."""
        return self.aborted or (self.signal is not None and self.signal.is_set())

    def request(self) -> None:
        """Ask the invocation to stop; safe from any thread."""
        self.aborted = True
        interrupt, loop = self._interrupt, self._loop
        if interrupt is None or loop is None:
            return
        if threading.get_ident() == self._thread:
            loop.call_soon(interrupt)  # after the caller's own step, as a signal would
        elif not loop.is_closed():
            loop.call_soon_threadsafe(interrupt)

    def _bind(self, interrupt: Callable[[], None] | None) -> None:
        self._interrupt = interrupt
        self._loop = asyncio.get_running_loop() if interrupt is not None else None
        self._thread = threading.get_ident() if interrupt is not None else None


async def until_aborted(
    ctx: InvocationContext, events: AsyncGenerator[Event, None]
) -> AsyncGenerator[Event, None]:
    """``events`` until the invocation is asked to stop (see the module docstring).

    The agent keeps running in the caller's task (its context variables and spans stay
    where they are); an abort that arrives while the agent is waiting cancels that wait.
    Nothing is scheduled per event, and a turn without ``abort_signal`` schedules nothing.
    """
    state = ctx._abort
    task = asyncio.current_task()
    waiting = False
    interrupted = False

    def interrupt(*_: object) -> None:
        nonlocal interrupted
        if waiting and not interrupted and task is not None:
            interrupted = True
            task.cancel(_INTERRUPT)

    state._bind(interrupt)
    watcher = asyncio.ensure_future(state.signal.wait()) if state.signal is not None else None
    if watcher is not None:
        watcher.add_done_callback(interrupt)
    try:
        async with aclosing(events) as stream:
            while not state.requested:
                waiting = True
                try:
                    event = await anext(stream)
                except StopAsyncIteration:
                    return
                except asyncio.CancelledError:
                    if not interrupted:
                        raise
                    interrupted = False  # consumed: this task's cancellation is undone below
                    _uncancel(task)
                    return
                finally:
                    waiting = False
                yield event
    finally:
        state._bind(None)
        if interrupted:  # the agent swallowed the cancellation: undo it all the same
            _uncancel(task)
        if watcher is not None:
            watcher.remove_done_callback(interrupt)
            watcher.cancel()


def _uncancel(task: asyncio.Task[object] | None) -> None:
    uncancel = getattr(task, "uncancel", None)  # Python 3.11+ counts cancellations
    if uncancel is not None:
        uncancel()


def sealing_events(
    events: list[Event], invocation_id: str, root_agent: str, branch: str | None
) -> list[Event]:
    """The events that close an aborted invocation, given the session's committed events."""
    own = [event for event in events if event.invocation_id == invocation_id]
    answered = {r.id for event in own for r in event.get_function_responses() if r.id}
    dangling: dict[tuple[str, str | None, str | None], list[types.FunctionCall]] = (
        collections.defaultdict(list)
    )
    for event in own:
        for call in event.get_function_calls():
            if call.id and call.id not in answered:
                key = (event.author, event.branch or branch, event.isolation_scope)
                dangling[key].append(call)
    if not dangling:
        return [
            Event(
                invocation_id=invocation_id,
                author=root_agent,
                branch=branch,
                error_code=ABORTED_CODE,
                error_message=ABORTED_MESSAGE,
            )
        ]
    return [
        Event(
            invocation_id=invocation_id,
            author=author,
            branch=call_branch,
            isolation_scope=scope,  # seen where the call was (a delegated task's scope)
            content=types.Content(
                role="user",
                parts=[
                    types.Part(
                        function_response=types.FunctionResponse(
                            id=call.id, name=call.name, response={"error": ABORTED_MESSAGE}
                        )
                    )
                    for call in calls
                ],
            ),
            error_code=ABORTED_CODE,
            error_message=ABORTED_MESSAGE,
        )
        for (author, call_branch, scope), calls in dangling.items()
    ]
