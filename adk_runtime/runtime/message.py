"""The user's message: checked, made an event, placed, and found again when retried.

Before a turn claims its session the Runner checks the run's ids and refuses a message that
carries function calls (:func:`validate_run`, :func:`validate_message`). The message becomes
the turn's first event (:func:`user_event`); a plain reply to a task node's question goes on
that node's path (:func:`place_reply`). A message stored already under its idempotency key
answers with what its turn committed (:func:`stored_answer`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.genai import types

from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.plugin_manager import PluginManager
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions._prepare import AppendResult
from adk_runtime.sessions._validation import validate_id, validate_session_key
from adk_runtime.sessions.base import BaseSessionService
from adk_runtime.sessions.session import Session
from adk_runtime.workflow._interrupts import is_task_question

__all__ = [
    "independent_of_history",
    "place_reply",
    "stored_answer",
    "user_event",
    "validate_message",
    "validate_run",
]


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


def independent_of_history(
    root: BaseAgent, message: types.Content | None, plugins: PluginManager
) -> bool:
    """Whether the user's event for ``message`` is the same whatever the session holds.

    Then the Runner builds it before reading the session and commits it in the claim's
    round trip (``sessions.claims.TurnStart``). So: no function response (an answer goes
    to its call, checked against it); no plugin rewrites messages (its hook sees the
    session); and no agent of the tree routes or checks plain messages by what is stored
    (a ``mode="task"`` agent, or one overriding ``_question_awaiting_reply`` or
    ``_check_client_message``, as a workflow does).
    """
    if message is not None and any(part.function_response for part in message.parts or []):
        return False
    if plugins.overrides("on_user_message_callback"):
        return False
    pending = [root]
    while pending:
        agent = pending.pop()
        kind = type(agent)
        if (
            getattr(agent, "mode", None) == "task"
            or kind._question_awaiting_reply is not BaseAgent._question_awaiting_reply
            or kind._check_client_message is not BaseAgent._check_client_message
        ):
            return False
        pending.extend(agent.sub_agents)
    return True


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
