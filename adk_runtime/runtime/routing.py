"""The pieces of a Runner turn, shared with the crash resume (``_durable``).

Checking a run's ids and message, the stored call a message answers, the agent a turn runs
(the conversation's current agent; for an answer, the agent that asked or the workflow above
it, resumed from the invocation's committed events), the user's event, an event as yielded
(``temp:`` keys stripped), and the compaction after a turn.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import EllipsisType
from typing import Any

from google.genai import types

from adk_runtime.agents import _resume, _tasks
from adk_runtime.agents._generator_tools import caller_of
from adk_runtime.agents.loop_agent import LoopAgent
from adk_runtime.agents.parallel_agent import ParallelAgent
from adk_runtime.agents.sequential_agent import SequentialAgent
from adk_runtime.apps.app import App
from adk_runtime.apps.compaction import compact_after_invocation
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, EventActions
from adk_runtime.events._calls import calling_event
from adk_runtime.events.rewind import live_events_newest_first
from adk_runtime.sessions._prepare import AppendResult
from adk_runtime.sessions._validation import validate_id, validate_session_key
from adk_runtime.sessions.base import BaseSessionService
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import State
from adk_runtime.workflow._interrupts import is_task_question, waiting_task_question
from adk_runtime.workflow._root import NodeAgent

__all__ = [
    "agent_resumed",
    "agent_to_run",
    "answered_event",
    "compact",
    "continue_with",
    "function_call_event",
    "place_reply",
    "transfers_back",
    "user_event",
    "validate_message",
    "validate_run",
    "without_temp",
]

logger = logging.getLogger(__name__)


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
    while isinstance(agent.parent_agent, (SequentialAgent, LoopAgent, ParallelAgent)):
        agent = agent.parent_agent
    return agent


def validate_run(
    app_name: str,
    user_id: str,
    session_id: str,
    invocation_id: str | None,
    idempotency_key: str | None,
) -> None:
    """Check a run's ids (``InputValidationError`` names a malformed one)."""
    validate_session_key(app_name, user_id, session_id)
    if invocation_id is not None:
        validate_id(invocation_id, "invocation_id")
    if idempotency_key is not None:
        validate_id(idempotency_key, "idempotency_key")


def validate_message(message: types.Content | None) -> None:
    """Refuse a user message that carries function calls: only the model calls functions."""
    if message is not None and any(part.function_call for part in message.parts or []):
        raise InputValidationError(
            "A user message cannot contain function calls: only the model calls tools. "
            "Answer a call with a function response carrying the call's id."
        )


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
    workflow whose ``mode="task"`` agent node asked the user a question replies to that
    question (``workflow._interrupts.waiting_task_question``).

    Raises:
        InputValidationError: Task nodes of two runs wait for a reply at once.
    """
    event = function_call_event(session, message)
    plain = message is not None and not any(p.function_response for p in message.parts or [])
    if event is None and plain and isinstance(root, NodeAgent):
        event = waiting_task_question(session.events)
    return event


def place_reply(event: Event, call_event: Event | None) -> None:
    """Put a plain reply to a task node's question (``call_event``) on the node's path.

    The workflow's log then reads it as the answer, and the node's agent, on its branch and
    in its scope, sees it; other nodes' agents do not.
    """
    if call_event is None or event.get_function_responses():
        return
    if any(is_task_question(call) for call in call_event.get_function_calls()):
        event.node_info.path = call_event.node_info.path
        event.branch = call_event.branch
        event.isolation_scope = call_event.isolation_scope


def user_event(
    invocation_id: str,
    message: types.Content | None,
    state_delta: dict[str, Any] | None,
    event_id: str | None,
) -> Event:
    """The user's event: ``message`` and ``state_delta``, stored under ``event_id`` if given."""
    event = Event(
        invocation_id=invocation_id,
        author="user",
        content=message,
        actions=EventActions(state_delta=dict(state_delta or {})),
    )
    if event_id is not None:
        event.id = event_id
    return event


def without_temp(event: Event) -> Event:
    """``event`` as yielded: its ``temp:`` state keys stripped (a copy, if it had any)."""
    delta = event.actions.state_delta
    if not any(key.startswith(State.TEMP_PREFIX) for key in delta):
        return event
    kept = {k: v for k, v in delta.items() if not k.startswith(State.TEMP_PREFIX)}
    actions = event.actions.model_copy(update={"state_delta": kept})
    return event.model_copy(update={"actions": actions})


async def compact(app: App, service: BaseSessionService, session: Session) -> None:
    """Commit the compaction event due after this invocation, if the app asks for one.

    Under the turn's claim, after its last event was yielded: the caller's iteration ends
    once it is committed.
    """
    if app.events_compaction_config is None:
        return
    summary = await compact_after_invocation(app, session.events, session_id=session.id)
    if summary is None:
        return
    try:
        await service.append_event(session, summary)
    except Exception as exc:  # the turn is committed and answered; the next one retries
        logger.warning(
            "Event compaction of session %s was not committed (%s); the turn stands.",
            session.id,
            type(exc).__name__,
        )


async def stored_answer(
    service: BaseSessionService,
    session: Session,
    result: AppendResult,
    missing: Callable[[], Exception],
) -> list[Event] | None:
    """What to answer when the user's message was stored already (an idempotent retry).

    The events its turn committed after it, to yield again; or None when that turn left
    nothing and its process died (the message is still the last event), so it is to be run
    now. None too for a message stored just now. ``missing()`` is raised when the session is
    gone.
    """
    if not result.already_stored:
        return None
    fresh = await service.get_session(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    if fresh is None:
        raise missing()
    message = result.event
    ids = [event.id for event in fresh.events]
    start = ids.index(message.id) + 1 if message.id in ids else len(ids)
    answer = [e for e in fresh.events[start:] if e.invocation_id == message.invocation_id]
    return answer if answer or result.sequence != session.revision else None
