"""Which agent a turn runs, and the stored call a message answers.

The conversation's current agent runs (the root, or a sub-agent the conversation was
transferred to). A message that answers a call goes to the agent that made it, or to the
agent above it that runs its sub-agents as steps (``BaseAgent._resumed_by_inner_answers``),
resumed from the invocation's committed events. A plain message to a root that waits for a
reply (``BaseAgent.question_awaiting_reply``) answers that question. The agents decide; this
module never tests their classes.
"""

from __future__ import annotations

from collections.abc import Callable
from types import EllipsisType

from google.genai import types

from adk_runtime.agents import _resume, _tasks
from adk_runtime.agents._generator_tools import caller_of
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event
from adk_runtime.events._calls import calling_event
from adk_runtime.events.rewind import live_events_newest_first
from adk_runtime.sessions.session import Session

__all__ = [
    "agent_resumed",
    "agent_to_run",
    "answered_event",
    "continue_with",
    "function_call_event",
    "transfers_back",
]


def agent_to_run(
    root: BaseAgent,
    session: Session,
    call_event: Event | EllipsisType | None,
    transferable: Callable[[BaseAgent], bool],
) -> BaseAgent:
    """The agent that continues the conversation (``Runner._find_agent_to_run``)."""
    if call_event is ...:
        last = session.events[-1] if session.events else None
        call_event = None
        if last is not None and last.author == "user":
            call_event = function_call_event(session, last.content)
    if call_event is not None:
        # a generator tool's input request goes back to the agent whose call asked
        owner = caller_of(call_event)
        caller = root.find_agent(owner[0] if owner else call_event.author)
        if caller is not None:
            return caller
    for event in live_events_newest_first(session.events):
        if event.author == "user" or event.isolation_scope is not None:
            continue  # a delegated task's events: the agent that delegated it goes on
        if event.author == root.name:
            return root
        agent = root.find_sub_agent(event.author)
        if agent is not None and transferable(agent):
            return agent
    return root


def transfers_back(agent: BaseAgent) -> bool:
    """Whether ``agent`` and every agent above it may transfer back to its parent."""
    current: BaseAgent | None = agent
    while current is not None:
        if not current.can_transfer_to_parent():
            return False
        current = current.parent_agent
    return True


def continue_with(ctx: InvocationContext, caller: BaseAgent, call_event: Event | None) -> None:
    """Make ``ctx`` run the agent a live turn runs (:func:`agent_resumed`).

    An answer inside a workflow resumes the workflow from the invocation's committed events,
    as a crashed turn's resume does: each agent continues from its own events, so a parallel
    branch that had answered is not run again. An answer to a call made inside a delegated
    task resumes the agent that delegated it, likewise.
    """
    asked = caller
    if call_event is not None and call_event.isolation_scope is not None:
        # a call made inside a delegated task: the agent that delegated it hands the task
        # back to its sub-agent, which continues from its events with the answer
        delegating = _tasks.delegating_event(ctx.session.events, call_event.isolation_scope)
        delegator = caller.root_agent.find_agent(delegating.author) if delegating else None
        if delegator is not None:
            caller, call_event = delegator, delegating
    ctx.agent = agent_resumed(caller, call_event)
    if ctx.agent is not asked:
        _resume.start(ctx, _resume.invocation_events(ctx.session.events, ctx.invocation_id))


def agent_resumed(caller: BaseAgent, call_event: Event | None) -> BaseAgent:
    """The agent a turn runs, given the agent its message goes to.

    An answer to a call (``call_event``) made inside a workflow resumes the workflow, from
    the checkpoints of the paused invocation: the agents after the caller run too. The
    Runner's turn and the resume of a crashed turn both run this agent.
    """
    if call_event is None:
        return caller
    agent = caller
    while agent.parent_agent is not None and agent.parent_agent._resumed_by_inner_answers:
        agent = agent.parent_agent
    return agent


def function_call_event(session: Session, message: types.Content | None) -> Event | None:
    """The stored event holding the function call that ``message`` answers, if any."""
    if message is None or not message.parts:
        return None
    ids = {
        part.function_response.id
        for part in message.parts
        if part.function_response is not None and part.function_response.id
    }
    return calling_event(session.events, ids)


def answered_event(
    root: BaseAgent, session: Session, message: types.Content | None
) -> Event | None:
    """The stored event holding the call ``message`` answers, if any.

    A function response answers its call (:func:`function_call_event`); a plain message to a
    root that waits for a reply answers its question (``BaseAgent.question_awaiting_reply``:
    a workflow's ``mode="task"`` agent node's question).

    Raises:
        InputValidationError: Task nodes of two runs wait for a reply at once.
    """
    event = function_call_event(session, message)
    plain = message is not None and not any(p.function_response for p in message.parts or [])
    if event is None and plain:
        event = root._question_awaiting_reply(session.events)
    return event
