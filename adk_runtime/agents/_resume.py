"""Resuming an interrupted invocation from the events it committed (durable execution).

The log is the checkpoint: every step of an invocation (the user's message, each model
response, each batch of function responses) is committed before the next one starts. So a
resumed invocation does not replay anything; each agent looks at the last event *it*
committed in the invocation and continues from there:

==================================================  =========================================
the agent's last event in the invocation            what the resumed run does
==================================================  =========================================
none (it had not started)                           runs normally
a function call whose responses are all committed   calls the model again (the contents are
                                                    built from the log, as they would have
                                                    been)
a function call with calls lacking a response       runs only those calls again (at least
                                                    once: ``tool_context.attempt`` is 2),
                                                    commits their responses, then goes on
a response handing over to another agent            resumes that agent
a pause on long-running calls (the call, then its   nothing until the client answers them;
pending results), or a confirmation or credential   once answered, goes on (the model sees
request                                             the answer)
a final response                                    nothing: that agent is done
==================================================  =========================================

Workflow agents record their progress as content-less checkpoint events (``agent_state`` /
``end_of_agent``, made by :func:`checkpoint`), in google-adk's positions and form: before each
sub-agent an ``agent_state`` naming it, at the end an ``end_of_agent``. They record them when
the context :attr:`~InvocationContext.records_checkpoints` (the app is resumable, or the
Runner runs the invocation), and read them back with :func:`checkpoint_of`: a resumed
``SequentialAgent`` continues with the sub-agent it was running, a ``LoopAgent`` at the same
iteration, a ``ParallelAgent`` runs only the branches that had not ended (a branch's end is an
``end_of_agent`` event of its sub-agent, on its branch; a sub-agent without one continues from
its own events as above).

In google-adk's resumable mode (``ctx.is_resumable``) an ``LlmAgent`` also yields an
``end_of_agent`` event when it is done: after its final response, or right after the response
that transfers the conversation (before the agent it transfers to runs); never while it waits
for a long-running call.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import AsyncGenerator, Iterable
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from adk_runtime.agents import _functions, _input_requests, _tasks, _toolsets
from adk_runtime.agents._generator_tools import caller_of
from adk_runtime.agents._llm_flow import run_flow
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.events import Event
from adk_runtime.models.llm_request import LlmRequest

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent
    from adk_runtime.core.base_agent import BaseAgent, BaseAgentState

logger = logging.getLogger(__name__)

__all__ = [
    "Checkpoint",
    "ResumeState",
    "after",
    "answered",
    "checkpoint",
    "checkpoint_of",
    "ended",
    "invocation_events",
    "run_llm_agent",
    "shown",
    "start",
    "sub_agent_index",
    "workflow_start",
]


@dataclasses.dataclass
class ResumeState:
    """What a resumed run knows of its invocation (shared by every agent of the run).

    Attributes:
        events: The invocation's events committed before the resumption, oldest first.
        consumed: ``(agent, branch)`` pairs that already continued from their resume point
            (an agent run again later in the same run starts afresh).
        retried_calls: Ids of function calls run again by this resumption.
    """

    events: list[Event]
    consumed: set[tuple[str, str | None, str | None]] = dataclasses.field(default_factory=set)
    retried_calls: set[str] = dataclasses.field(default_factory=set)

    def answered(self, agent: BaseAgent, ctx: InvocationContext) -> bool:
        """``BaseAgent.run_async`` asks this (through the context): see :func:`answered`."""
        return answered(agent, ctx)


def invocation_events(events: Iterable[Event], invocation_id: str) -> list[Event]:
    """The committed events of one invocation, in log order."""
    return [event for event in events if event.invocation_id == invocation_id]


def start(ctx: InvocationContext, events: list[Event]) -> None:
    """Make ``ctx`` a resumption of its invocation, whose committed events are ``events``."""
    ctx._resume = ResumeState(events)


def _resume_point(agent: BaseAgent, ctx: InvocationContext) -> list[Event] | None:
    """The agent's committed events in the invocation, once per run (None: start afresh)."""
    found = _own_events(agent, ctx)
    return [event for _, event in found] if found else None


def _own_events(agent: BaseAgent, ctx: InvocationContext) -> list[tuple[int, Event]]:
    state = ctx._resume
    if not isinstance(state, ResumeState):
        return []
    key = (agent.name, ctx.branch, ctx.isolation_scope)
    if key in state.consumed:
        return []
    state.consumed.add(key)
    return [
        (position, event)
        for position, event in enumerate(state.events)
        if event.author == agent.name
        and event.branch == ctx.branch
        and event.isolation_scope == ctx.isolation_scope
    ]


@dataclasses.dataclass(frozen=True)
class Checkpoint:
    """Where a workflow agent was when its invocation stopped.

    Attributes:
        state: Its last ``agent_state`` (empty when it had none).
        ended: It committed ``end_of_agent``: nothing is left to run.
        position: Index of that checkpoint among the invocation's events.
    """

    state: dict[str, Any]
    ended: bool
    position: int


def checkpoint_of(agent: BaseAgent, ctx: InvocationContext) -> Checkpoint | None:
    """A workflow agent's last checkpoint in the invocation being resumed.

    None when the agent left no checkpoint, or it already continued from it in this run: then
    it starts from the beginning (its sub-agents still continue from their own events). When
    the run is not a resumption of committed events, its state in ``ctx.agent_states`` (as
    google-adk reads it: filled in from the events of a continued invocation, or set by hand).
    """
    if not isinstance(ctx._resume, ResumeState):
        recorded = ctx.agent_states.get(agent.name)
        return None if recorded is None else Checkpoint(dict(recorded), False, -1)
    for position, event in reversed(_own_events(agent, ctx)):
        if event.actions.end_of_agent:
            return Checkpoint({}, True, position)
        if event.actions.agent_state is not None:
            return Checkpoint(dict(event.actions.agent_state), False, position)
    return None


def workflow_start(agent: BaseAgent, ctx: InvocationContext) -> tuple[bool, Checkpoint | None]:
    """How a workflow agent's run opens: whether it has anything to run, and where it resumes.

    Nothing to run when it has no sub-agents, or the invocation being resumed holds its end.
    Otherwise the checkpoint it continues from (:func:`checkpoint_of`; None: from the start).
    """
    if not agent.sub_agents:
        return False, None
    resumed = checkpoint_of(agent, ctx)
    return resumed is None or not resumed.ended, resumed


def sub_agent_index(agent: BaseAgent, state: dict[str, Any]) -> int:
    """The sub-agent a workflow checkpoint says to run next, as an index into its sub-agents.

    The checkpoint names it (``current_sub_agent``, google-adk's form; empty: the first).
    Checkpoints written before names were used hold its index (``next``). A name that is no
    longer among the sub-agents (the agent tree changed while the invocation was
    interrupted) starts over from the first, with a warning.
    """
    name = state.get("current_sub_agent")
    if name is None:
        return int(state.get("next", 0))
    if not name:
        return 0
    for index, sub_agent in enumerate(agent.sub_agents):
        if sub_agent.name == name:
            return index
    logger.warning(
        "Resuming %s: its checkpoint names sub-agent %r, which it no longer has; starting "
        "from its first sub-agent.",
        agent.name,
        name,
    )
    return 0


def after(ctx: InvocationContext, checkpoint: Checkpoint | None) -> InvocationContext:
    """``ctx`` for the sub-agents of a workflow resumed from ``checkpoint``.

    They see only the events committed after it, so a sub-agent run again in a later loop
    iteration does not take its previous iteration's answer for its own.
    """
    state = ctx._resume
    if checkpoint is None or not isinstance(state, ResumeState):
        return ctx
    scoped = ctx.model_copy()
    scoped._resume = dataclasses.replace(state, events=state.events[checkpoint.position + 1 :])
    return scoped


def checkpoint(agent: BaseAgent, ctx: InvocationContext, state: BaseAgentState | None) -> Event:
    """A content-less checkpoint event: ``agent_state`` (when given) or ``end_of_agent``.

    Recorded in ``ctx`` too (``set_agent_state``), as google-adk does. It never reaches a
    model (contents are built from events with content only). Outside google-adk's resumable
    mode it is recorded for resuming only: the Runner commits it and does not yield it
    (:func:`shown`), as google-adk's stream then has no checkpoints.
    """
    if state is None:
        ctx.set_agent_state(agent.name, end_of_agent=True)
    else:
        ctx.set_agent_state(agent.name, agent_state=state)
    event = agent._create_agent_state_event(ctx)
    if not ctx.is_resumable:
        ctx._resume_only.add(event.id)
    return event


def shown(ctx: InvocationContext, event: Event) -> bool:
    """Whether the Runner yields committed ``event``: all but checkpoints kept for resuming.

    A checkpoint a workflow agent made only because the Runner's invocations are durable
    (:func:`checkpoint` outside google-adk's resumable mode) is committed and not yielded;
    google-adk would not have made it, and code that reads a stream's content-less events as
    final responses would trip on it. Every other event is yielded, a custom agent's own
    ``agent_state`` events included.
    """
    return event.id not in ctx._resume_only


def answered(agent: BaseAgent, ctx: InvocationContext) -> bool:
    """In the resumed invocation, the agent is done and must not run again.

    For agents that do not resume themselves (custom ``BaseAgent`` subclasses). One that
    records its progress the way google-adk's resumable agents do (``agent_state`` events,
    ``BaseAgent._create_agent_state_event``) is done once its last such event says
    ``end_of_agent``, and otherwise runs again (it reads its state back with
    ``_load_agent_state``). Any other is done once its last event with content is a final
    response (running it again would answer twice), unless that event paused on
    long-running calls that were answered since.
    """
    state = ctx._resume
    if not isinstance(state, ResumeState):
        return False
    own = [e for e in state.events if e.author == agent.name and e.branch == ctx.branch]
    for event in reversed(own):
        if event.actions.end_of_agent:
            return True
        if event.actions.agent_state is not None:
            return False
    steps = [event for event in own if event.content]
    if not steps:
        return False
    # A pause answered since is not done: it runs again (and sees the answer).
    return _waits_or_is_done(steps, ctx)


def ended(agent: BaseAgent, ctx: InvocationContext) -> bool:
    """The resumed invocation holds an ``end_of_agent`` of ``agent`` on ``ctx``'s branch.

    Not a resumption of committed events: ``ctx.end_of_agents`` says (google-adk's record).
    """
    state = ctx._resume
    if not isinstance(state, ResumeState):
        return bool(ctx.end_of_agents.get(agent.name))
    return any(
        event.author == agent.name and event.branch == ctx.branch and event.actions.end_of_agent
        for event in state.events
    )


async def run_llm_agent(agent: LlmAgent, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
    """Run an LlmAgent, continuing from its last committed event when resuming (table above).

    In google-adk's resumable mode, also its ``end_of_agent`` event (see the module's doc).
    """
    own = _resume_point(agent, ctx) or []
    marking = _EndMarking(agent, ctx, done=bool(own) and bool(own[-1].actions.end_of_agent))
    if own:  # it had transferred, but its end was not committed: the end first
        marker = marking.after(own[-1])
        if marker is not None:
            yield marker
    async with aclosing(_continue(agent, ctx, own)) as events:
        async for event in events:
            yield event
            marker = marking.after(event)
            if marker is not None:
                yield marker
    marker = marking.at_end()
    if marker is not None:
        yield marker


class _EndMarking:
    """When an LlmAgent yields its ``end_of_agent`` event (google-adk's resumable mode only)."""

    def __init__(self, agent: LlmAgent, ctx: InvocationContext, *, done: bool) -> None:
        self.agent = agent
        self.ctx = ctx
        self.done = done or not ctx.is_resumable
        self.paused = False

    def after(self, event: Event) -> Event | None:
        """The marker due right after ``event``: after a response that transfers."""
        self.paused = self.paused or self.ctx.should_pause_invocation(event)
        transfers = (
            event.author == self.agent.name
            and bool(event.actions.transfer_to_agent)
            and bool(event.get_function_responses())
        )
        return self._mark() if transfers and not self.paused else None

    def at_end(self) -> Event | None:
        """The marker due when the agent's run is over, unless it waits for an answer."""
        if self.paused:
            return None
        recent = self.ctx._get_events(current_invocation=True, current_branch=True)[-2:]
        if any(self.ctx.should_pause_invocation(event) for event in recent):
            return None
        return self._mark()

    def _mark(self) -> Event | None:
        if self.done:
            return None
        self.done = True
        return checkpoint(self.agent, self.ctx, None)


def _is_marker(event: Event) -> bool:
    """A content-less checkpoint event (``agent_state`` or ``end_of_agent``)."""
    return event.content is None and (
        bool(event.actions.end_of_agent) or event.actions.agent_state is not None
    )


async def _continue(
    agent: LlmAgent, ctx: InvocationContext, own: list[Event]
) -> AsyncGenerator[Event, None]:
    """The flow, or what is left of it after the agent's committed events ``own``."""
    steps = [event for event in own if not _is_marker(event)]
    last = steps[-1] if steps else None
    if last is None and own:
        return  # it committed only its end: done
    if last is not None:
        if last.actions.transfer_to_agent:
            async with aclosing(_run_transfer(agent, ctx, last)) as events:
                async for event in events:
                    yield event
            return
        if _waits_or_is_done(steps, ctx) or _waits_for_input(agent, ctx, last):
            return
        if last.get_function_calls():
            done = False
            async with aclosing(_rerun_pending(agent, ctx, last)) as events:
                async for event in events:
                    done = done or _stops(event)
                    yield event
            if done:
                return
    async with aclosing(run_flow(agent, ctx)) as events:
        async for event in events:
            yield event


def _waits_or_is_done(steps: list[Event], ctx: InvocationContext) -> bool:
    """The agent's last events are a pause the client has not answered, or its answer."""
    waiting = _pause(steps)
    if waiting:
        return not waiting <= _answered_ids(ctx, by_client=True)
    return steps[-1].is_final_response()


def _waits_for_input(agent: LlmAgent, ctx: InvocationContext, last: Event) -> bool:
    """The last call event's generator tools asked for input the user has not given."""
    calls = {call.id for call in last.get_function_calls() if call.id}
    asked = _input_requests.asked_by_calls(ctx.session.events, agent.name, calls)
    return bool(asked - _answered_ids(ctx, by_client=True))


def _pause(steps: list[Event]) -> set[str]:
    """The long-running calls the agent's last events paused on (empty: no pause).

    The pause is the trailing run of the call event naming the calls it waits for (a
    long-running tool's call, or a confirmation or credential request) and the responses
    after it (a pending result is no answer); any other last event (an answer in text, a
    plain tool's call and result) is no pause.
    """
    waiting: set[str] = set()
    for event in reversed(steps):
        if event.get_function_responses():
            continue
        if not event.long_running_tool_ids or not event.get_function_calls():
            break
        waiting |= event.long_running_tool_ids
    return waiting


def _answered_ids(ctx: InvocationContext, *, by_client: bool = False) -> set[str]:
    """Ids of the calls the session holds a response to (``by_client``: from the client).

    A pause ends only with the client's answers: a long-running tool's pending result
    carries its call's id too, and is no answer.
    """
    return {
        response.id
        for event in ctx.session.events
        if not by_client or event.author == "user"
        for response in event.get_function_responses()
        if response.id
    }


def _stops(event: Event) -> bool:
    """True when the flow would not call the model after this event.

    A tool's progress event, or an event of a run a call made, never stops it: the call's
    response follows.
    """
    if caller_of(event) is not None:
        return False
    return bool(event.actions.transfer_to_agent) or event.is_final_response()


async def _run_transfer(
    agent: LlmAgent, ctx: InvocationContext, event: Event
) -> AsyncGenerator[Event, None]:
    target = agent.root_agent.find_agent(event.actions.transfer_to_agent or "")
    if target is None:
        return
    async with aclosing(target.run_async(ctx)) as events:
        async for item in events:
            yield item


async def _rerun_pending(
    agent: LlmAgent, ctx: InvocationContext, call_event: Event
) -> AsyncGenerator[Event, None]:
    """Run again the calls of ``call_event`` committed without a response; yield the response."""
    answered = _answered_ids(ctx)
    waiting = set(call_event.long_running_tool_ids or set())
    # a call that asked for input is run again by the answer (_input_requests), not here
    waiting |= _input_requests.calls_that_asked(ctx.session.events, agent.name)
    # a delegated task is handed back to its agent by the flow (_tasks.resume_delegations)
    tasks = {tool.name: tool for tool in agent._task_tools(set())}
    waiting |= {call.id for call in _tasks.delegated_calls(call_event, tasks) if call.id}
    pending = [
        call
        for call in call_event.get_function_calls()
        if call.id not in answered and call.id not in waiting
    ]
    if not pending:
        return
    state = ctx._resume
    assert isinstance(state, ResumeState)
    state.retried_calls.update(call.id for call in pending if call.id)
    retry = call_event.model_copy(update={"content": _functions.calls_content(pending)})
    tools = await _tools_of(agent, ctx)
    stream = _functions.stream_calls(agent, ctx, retry, tools)
    async with aclosing(_functions.rerun_events(ctx, stream)) as rerun:
        async for event in rerun:
            yield event
    response = stream.response
    if response is not None and response.actions.transfer_to_agent and not stream.paused:
        async with aclosing(_run_transfer(agent, ctx, response)) as events:
            async for event in events:
                yield event


async def _tools_of(agent: LlmAgent, ctx: InvocationContext) -> dict[str, Any]:
    """The agent's tools by name, as its model requests declare them."""
    request = LlmRequest()
    tools = await agent.canonical_tools(ReadonlyContext(ctx))
    await _toolsets.prepare_request(agent.tools, tools, ToolContext(ctx), request)
    return dict(request.tools_dict)
