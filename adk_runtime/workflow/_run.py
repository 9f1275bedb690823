"""A workflow's run in one invocation: its node runs, their events, and its log.

Every event a node makes goes to the Runner through :meth:`WorkflowRun.emit`, which returns
once the Runner has committed it (and yielded it upstream): a node, like an agent, resumes
only after its event is durable, and sees the state it committed. Nodes running in parallel
take turns at the Runner; their events are committed one at a time, in the order they came.

The log is the checkpoint. A node run's output (and route) is committed on its output event,
stamped with the run's path (``wf@1/review@2``); paths are deterministic, so when a paused
invocation continues (the user answered a question) or a crashed one is resumed, the
workflow walks its graph again and every run whose output is in the log completes at once
with that output, without running (:class:`History`). A run whose output is a child's (a
workflow's terminal node, ``run_node(use_as_output=True)``) commits an ``end_of_agent`` marker
when it ends, since the child's output does not say the parent finished. A run that
committed neither (it had not finished, or it ended with no output) runs again; a workflow
that runs again replays its finished children from the log.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncGenerator, Coroutine
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from adk_runtime import telemetry
from adk_runtime.events.event import Event
from adk_runtime.events.event_actions import EventActions
from adk_runtime.sessions.state import check_state_write
from adk_runtime.tools._request_input_tool import REQUEST_INPUT_FUNCTION_CALL_NAME
from adk_runtime.utils.content_utils import extract_text_from_content
from adk_runtime.workflow._base_node import BaseNode
from adk_runtime.workflow._context import NodeContext
from adk_runtime.workflow._errors import (
    DynamicNodeFailError,
    NodeInterrupted,
    NodeTimeoutError,
    WorkflowDataError,
)
from adk_runtime.workflow._interrupts import TASK_QUESTION_PREFIX, interrupt_ids

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext

__all__ = ["History", "NodeResult", "Pause", "Place", "WorkflowRun"]

logger = logging.getLogger(__name__)


@dataclass
class NodeResult:
    """How a node run ended: its output (if any), its route, its unanswered questions.

    ``order`` is where its last event sits in the session's log (-1: it committed none), so
    runs that finished together are handled in the order they were committed, live and when
    replayed alike.
    """

    output: Any = None
    has_output: bool = False
    route: Any = None
    interrupts: list[str] = field(default_factory=list)
    order: int = -1


@dataclass(frozen=True)
class Place:
    """Where a node run happens.

    Its path, the author of its events, whose outputs its output also is (the enclosing
    runs', for a terminal node or ``use_as_output``), and the state schema its writes fit.
    """

    path: str
    author: str
    output_for: tuple[str, ...] = ()
    state_schema: type[BaseModel] | None = None


@dataclass
class _Recorded(NodeResult):
    """A run as the log shows it; ``interrupts`` are every request it made.

    ``asked_at`` is where each request was (last) asked in the log.

    ``has_output`` also counts an output it took from a child (``output_for``); it finished
    when it committed its own output, or its end (``finished``: a run whose output is a
    child's commits an ``end_of_agent`` marker when it ends).
    """

    asked_at: dict[str, int] = field(default_factory=dict)
    own_output: bool = False
    finished: bool = False


@dataclass
class Pause:
    """Where a run that asked the user something stands (see :meth:`History.pause`).

    Attributes:
        asked: The ids of every request the run made.
        answers: The answers given so far, by request id.
        unanswered: The requests no answer came for since they were (last) asked.
        waiting: No answer came since the run last asked: it still waits.
        route: The route the run took before it asked, if any.
    """

    asked: list[str]
    answers: dict[str, Any]
    unanswered: list[str]
    waiting: bool
    route: Any = None


class History:
    """What an invocation's committed events say of its node runs, by path."""

    def __init__(self, events: list[Event], invocation_id: str) -> None:
        """Read the node runs of ``invocation_id`` from ``events``."""
        self._runs: dict[str, _Recorded] = {}
        self._answers: dict[str, tuple[int, Any]] = {}
        for index, event in enumerate(events):
            if event.invocation_id != invocation_id or event.partial:
                continue
            if event.author == "user":
                for response in event.get_function_responses():
                    if response.id:
                        self._answers[response.id] = (index, _answer(response))
                self._reply(event, index)
            elif event.node_info.path:
                self._record(event, event.node_info.path, index)

    def _record(self, event: Event, path: str, index: int) -> None:
        run = self._runs.setdefault(path, _Recorded())
        if event.output is not None or event.node_info.message_as_output:
            value = event.output if event.output is not None else event.content
            for owner in [path, *(event.node_info.output_for or [])]:
                owned = self._runs.setdefault(owner, _Recorded())
                owned.output, owned.has_output, owned.order = value, True, index
            run.own_output = True
        if event.actions.end_of_agent:
            run.finished, run.order = True, index
        if event.actions.route is not None:
            run.route, run.order = event.actions.route, index
        for request_id in interrupt_ids(event):
            run.interrupts.append(request_id)
            run.asked_at[request_id] = index

    def _reply(self, event: Event, index: int) -> None:
        """A user message on a run's path replies to its latest question (a task node's)."""
        run = self._runs.get(event.node_info.path) if event.node_info.path else None
        if run is None or not run.interrupts or event.get_function_responses():
            return
        if not run.interrupts[-1].startswith(TASK_QUESTION_PREFIX):
            return
        text = extract_text_from_content(event.content)
        self._answers[run.interrupts[-1]] = (index, text)

    def completed(self, path: str) -> NodeResult | None:
        """The result of the run at ``path`` if the log shows it finished, else None.

        A run that made its output and asked the user something finishes (with that output)
        once every question is answered.
        """
        run = self._runs.get(path)
        if run is None or not (
            run.own_output or run.finished or (run.route is not None and not run.interrupts)
        ):
            return None
        if self._unanswered(run):
            return None
        return NodeResult(
            output=run.output, has_output=run.has_output, route=run.route, order=run.order
        )

    def pause(self, path: str) -> Pause | None:
        """Where the run at ``path`` stands if it asked the user something, else None."""
        run = self._runs.get(path)
        if run is None or not run.interrupts:
            return None
        answers = {rid: self._answers[rid][1] for rid in run.interrupts if rid in self._answers}
        last_asked = max(run.asked_at.values())
        fresh = any(self._answers[rid][0] > last_asked for rid in answers)
        return Pause(
            asked=list(run.interrupts),
            answers=answers,
            unanswered=self._unanswered(run),
            waiting=not fresh,
            route=run.route,
        )

    def _unanswered(self, run: _Recorded) -> list[str]:
        """The run's requests with no answer after they were (last) asked, in asking order."""
        return [
            rid
            for rid, asked in run.asked_at.items()
            if rid not in self._answers or self._answers[rid][0] < asked
        ]


def _answer(response: Any) -> Any:
    from adk_runtime.agents._input_requests import unwrapped_answer

    if response.name == REQUEST_INPUT_FUNCTION_CALL_NAME:
        return unwrapped_answer(response.response)
    return response.response


@dataclass
class _Emission:
    event: Event
    committed: asyncio.Future[int]


class WorkflowRun:
    """The node runs of one invocation, and the way their events reach the Runner."""

    def __init__(self, invocation_context: InvocationContext) -> None:
        """Start (or continue, from its log) the workflow run of ``invocation_context``."""
        self.invocation = invocation_context
        self.history = History(invocation_context.session.events, invocation_context.invocation_id)
        self._queue: asyncio.Queue[_Emission] = asyncio.Queue()
        self._reported: dict[int, Exception] = {}  # the errors committed as error events

    async def emit(self, event: Event) -> int:
        """Hand ``event`` to the Runner; return once it is committed (partial: yielded).

        Returns:
            Where the event sits in the session's log once committed.
        """
        committed: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Emission(event, committed))
        return await committed

    async def events(self, main: Coroutine[Any, Any, Any]) -> AsyncGenerator[Event, None]:
        """Run ``main`` (the root node) and yield the events its nodes emit, one at a time."""
        task = asyncio.ensure_future(main)
        try:
            while True:
                getter = asyncio.ensure_future(self._queue.get())
                await asyncio.wait({getter, task}, return_when=asyncio.FIRST_COMPLETED)
                if not getter.done():
                    getter.cancel()
                    task.result()  # a node's error ends the run here
                    return
                emission = getter.result()
                yield emission.event
                if not emission.committed.done():
                    emission.committed.set_result(len(self.invocation.session.events) - 1)
        finally:
            if not task.done():
                task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def advance(
        self, node: BaseNode, node_input: Any, place: Place, *, rerun: bool = False
    ) -> NodeResult:
        """Move the run at ``place.path`` on: run it, or act on the answers it waits for.

        A run whose output the log holds returns it without running.

        Unanswered: it keeps waiting (its questions are the result's interrupts). Answered:
        a ``rerun_on_resume`` node runs again with the answers so far in
        ``ctx.resume_inputs`` (at each answer, so it can ask its next question); another waits
        until every question is answered, then completes with the answer as its output (with
        several questions, the answers by request id), committed like any output. ``rerun``
        runs it again whatever its ``rerun_on_resume`` (the root node). The node's own
        ``state_schema``, if any, replaces the enclosing run's.
        """
        done = self.logged(node, place.path)
        if done is not None:  # the log has its output: it does not run again
            return done
        if node.state_schema is not None:
            place = dataclasses.replace(place, state_schema=node.state_schema)
        pause = self.history.pause(place.path)
        if pause is None:
            return await self.run_node(node, node_input, place)
        reruns = node.rerun_on_resume or rerun
        if pause.waiting or (pause.unanswered and not reruns):
            return NodeResult(interrupts=pause.unanswered or pause.asked[-1:])
        if reruns:
            return await self.run_node(node, node_input, place, resume_inputs=pause.answers)
        answer = next(iter(pause.answers.values())) if len(pause.answers) == 1 else pause.answers
        stand_in = _Answered(
            name=node.name, answer=answer, route=pause.route, output_schema=node.output_schema
        )
        return await self.run_node(stand_in, node_input, place)

    def logged(self, node: BaseNode, path: str) -> NodeResult | None:
        """The result of ``node``'s run at ``path`` if the log shows it finished, else None.

        An output taken from a child (a workflow's) is checked against ``node``'s
        ``output_schema`` as when it was made, so a replay passes on the same value.
        """
        done = self.history.completed(path)
        if done is not None and done.has_output and node.output_schema is not None:
            done.output = node.checked_output(done.output)
        return done

    async def run_node(
        self,
        node: BaseNode,
        node_input: Any,
        place: Place,
        resume_inputs: dict[str, Any] | None = None,
    ) -> NodeResult:
        """Run ``node`` once at ``place`` (retried and timed as it says); its events committed.

        The run is an ``invoke_node <name>`` span (with its path), the parent of its
        children's and its agents' spans.

        Raises:
            NodeTimeoutError: The run took longer than ``node.timeout``.
            Exception: The node's own error, once its retries are spent.
        """
        attributes = {
            "gen_ai.operation.name": "invoke_node",
            "gen_ai.conversation.id": self.invocation.session.id,
            "adk.invocation.id": self.invocation.invocation_id,
            "adk.node.path": place.path,
        }
        with telemetry.span(f"invoke_node {node.name}", lambda: attributes) as span:
            result = await self._attempts(node, node_input, place, resume_inputs)
            if span is not None and result.interrupts:
                span.set_attribute("adk.node.waiting", True)
            return result

    async def _attempts(
        self,
        node: BaseNode,
        node_input: Any,
        place: Place,
        resume_inputs: dict[str, Any] | None,
    ) -> NodeResult:
        attempt = 1
        while True:
            ctx = NodeContext(
                self.invocation,
                run=self,
                node=node,
                node_path=place.path,
                run_id=place.path.rpartition("@")[2],
                attempt_count=attempt,
                event_author=place.author,
                resume_inputs=resume_inputs,
                state_schema=place.state_schema,
            )
            ctx._output_for = list(place.output_for)
            try:
                return await self._timed(node, ctx, node_input)
            except Exception as error:
                await self._report(error, ctx)
                retry = node.retry_config
                if retry is None or not retry.should_retry(error, attempt):
                    raise
                # retried here, so it goes no further up: the next attempt may raise this very
                # exception object again, and that failure is reported too
                self._reported.pop(id(error), None)
                delay = retry.delay(attempt)
                logger.warning(
                    "Node %s failed on attempt %d (%s); retrying in %.2f s.",
                    place.path,
                    attempt,
                    type(error).__name__,
                    delay,
                )
                ctx.discard_changes()
                await asyncio.sleep(delay)
                attempt += 1

    async def _report(self, error: Exception, ctx: NodeContext) -> None:
        """Commit a failed attempt as an error event on the run's path, as google-adk does.

        ``error_code`` is the exception's class name (or its ``status``, if a string),
        ``error_message`` the first line of its message (at most 300 characters: a long
        message, or one that quotes a payload, stays in the logs' reach only). An error is
        reported once, where it happened: not again by the workflow it fails, nor by a parent
        whose ``ctx.run_node`` child it was (``DynamicNodeFailError``).
        """
        if isinstance(error, DynamicNodeFailError) or self._reported.get(id(error)) is error:
            return
        self._reported[id(error)] = error  # held, so its id is not another error's
        status = getattr(error, "status", None)
        code = status if isinstance(status, str) else type(error).__name__
        event = Event(error_code=code, error_message=_first_line(error))
        await self.emit(self._stamped(event, ctx))

    async def _timed(self, node: BaseNode, ctx: NodeContext, node_input: Any) -> NodeResult:
        if node.timeout is None:
            return await self._drive(node, ctx, node_input)
        task = asyncio.ensure_future(self._drive(node, ctx, node_input))
        try:
            done, _ = await asyncio.wait({task}, timeout=node.timeout)
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        if not done:
            raise NodeTimeoutError(node_name=node.name, timeout=node.timeout)
        return task.result()

    async def _drive(self, node: BaseNode, ctx: NodeContext, node_input: Any) -> NodeResult:
        result = NodeResult()
        try:
            async with aclosing(_events_of(node, ctx, node_input)) as events:
                async for event in events:
                    self._stamp(event, ctx)
                    if ctx._output_delegated and _drop_own_output(event, ctx):
                        continue  # the run's output is its child's, committed already
                    if not event.partial:
                        self._account(event, ctx, result)
                    position = await self.emit(event)
                    if not event.partial:
                        result.order = position
        except NodeInterrupted as waiting:  # a child (ctx.run_node) waits for the user
            result.interrupts.extend(waiting.interrupts)
        rest = ctx.take_changes()
        if ctx.output is not None and not result.has_output and not result.interrupts:
            event = self._stamped(Event(output=node.checked_output(ctx.output)), ctx)
            self._account(event, ctx, result)
            result.order = await self.emit(event)
        elif (
            rest.state_delta
            or rest.artifact_delta
            or (ctx.route is not None and result.route is None)
        ):
            event = self._stamped(Event(actions=rest), ctx)
            self._account(event, ctx, result)
            result.order = await self.emit(event)
        if ctx._output_delegated and not result.interrupts:
            result.output, result.has_output = ctx._delegated_output, True
            # its output is a child's event, committed before the run ended: mark the end
            end = self._stamped(Event(actions=EventActions(end_of_agent=True)), ctx)
            result.order = await self.emit(end)
        return result

    def _stamp(self, event: Event, ctx: NodeContext) -> None:
        event.author = event.author or ctx.event_author
        event.invocation_id = event.invocation_id or ctx.invocation_id
        if not event.node_info.path:
            event.node_info.path = ctx.node_path

    def _stamped(self, event: Event, ctx: NodeContext) -> Event:
        self._stamp(event, ctx)
        return event

    def _account(self, event: Event, ctx: NodeContext, result: NodeResult) -> None:
        """Note the event's output, route and questions; give it the node's state writes.

        Raises:
            StateSchemaError: The event's own state delta breaks the run's ``state_schema``
                (nothing of it is committed).
            WorkflowDataError: A second output in one run.
        """
        if event.output is not None or event.node_info.message_as_output:
            if event.node_info.path != ctx.node_path:
                pass  # an inner node's output (a nested agent's): not this run's
            elif result.has_output:
                raise WorkflowDataError(
                    f"Node {ctx.node.name!r} produced a second output in one run: a run has "
                    "at most one output (yield other values as events with content)."
                )
            else:
                result.output = event.output if event.output is not None else event.content
                result.has_output = True
                event.node_info.output_for = [ctx.node_path, *ctx._output_for]
        if event.node_info.path == ctx.node_path:
            if event.actions.route is None and ctx.route is not None:
                event.actions.route = ctx.route  # set on the context: committed with the run
            if event.actions.route is not None:
                result.route = event.actions.route
        result.interrupts.extend(interrupt_ids(event))
        _merge(event.actions, ctx.take_changes())
        if ctx.state_schema is not None:  # Event(state=...), ctx.actions: as ctx.state writes
            for key, value in event.actions.state_delta.items():
                check_state_write(ctx.state_schema, key, value)


def is_failure_report(event: Event, ctx: NodeContext) -> bool:
    """Whether ``event`` reports a failed attempt of a run (see ``WorkflowRun._report``).

    Such an event is the workflow's, on the run's path: an agent node's agent never made it.
    """
    return bool(event.error_code) and event.content is None and event.author == ctx.event_author


def _first_line(error: Exception) -> str | None:
    """The first line of ``error``'s message, at most 300 characters (None: it has none)."""
    try:
        text = str(error)
    except Exception:  # a broken __str__ must not hide the error itself
        return None
    return (text.strip().splitlines() or [""])[0][:300] or None


def _events_of(node: BaseNode, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Event, None]:
    """The events of ``node``'s run: ``run``'s own, checked when a subclass overrides it.

    ``BaseNode.run`` checks its outputs and makes events of its items; an override of ``run``
    (google-adk allows one) gets the same checks here, so its outputs are stored only if they
    read back.
    """
    events = node.run(ctx=ctx, node_input=node_input)
    if type(node).run is BaseNode.run:
        return events
    return _checked_items(node, events)


async def _checked_items(
    node: BaseNode, items: AsyncGenerator[Any, None]
) -> AsyncGenerator[Event, None]:
    async with aclosing(items) as inner:
        async for item in inner:
            event = node.as_event(item)
            if event is not None:
                yield event


def _drop_own_output(event: Event, ctx: NodeContext) -> bool:
    """Clear the output of the run's own ``event``; True if nothing else is left to commit."""
    if event.node_info.path != ctx.node_path or event.output is None:
        return False
    event.output = None
    return not (event.content or event.actions.model_dump(exclude_defaults=True))


def _merge(actions: EventActions, taken: EventActions) -> None:
    """Put the node's writes under the event's own (the event's win)."""
    actions.state_delta = {**taken.state_delta, **actions.state_delta}
    actions.artifact_delta = {**taken.artifact_delta, **actions.artifact_delta}


class _Answered(BaseNode):
    """Stands in for a node whose question was answered: the answer is its output."""

    answer: Any = None
    route: Any = None

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        yield Event(output=self.answer, actions=EventActions(route=self.route))
