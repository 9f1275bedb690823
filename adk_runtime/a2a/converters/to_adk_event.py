"""A2A messages, tasks and task updates to events.

Every converter takes ``(a2a_object, author, invocation_context, part_converter)`` and gives
an :class:`~adk_runtime.events.Event` or None (nothing convertible). Peer state travels
no further than the peer: nothing here fills ``event.actions`` from A2A metadata.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from google.genai import types as genai_types

from adk_runtime.a2a import _compat
from adk_runtime.a2a._compat import Message, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from adk_runtime.a2a.converters.part_converter import (
    A2A_DATA_PART_END_TAG,
    A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY,
    A2A_DATA_PART_START_TAG,
    A2A_DATA_PART_TEXT_MIME_TYPE,
    A2APartToGenAIPartConverter,
    convert_a2a_part_to_genai_part,
)
from adk_runtime.a2a.converters.utils import _get_adk_metadata_key
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = [
    "MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_AUTH",
    "MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_INPUT",
    "A2AArtifactUpdateToEventConverter",
    "A2AMessageToEventConverter",
    "A2AStatusUpdateToEventConverter",
    "A2ATaskToEventConverter",
    "convert_a2a_artifact_update_to_event",
    "convert_a2a_message_to_event",
    "convert_a2a_status_update_to_event",
    "convert_a2a_task_to_event",
]

logger = logging.getLogger(__name__)

MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_INPUT = "mock_function_call_for_required_user_input"
MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_AUTH = "mock_function_call_for_required_user_auth"

_TASK_RESPONSE_BOUNDARY_STATES = frozenset(
    {
        _compat.TS_INPUT_REQUIRED,
        _compat.TS_AUTH_REQUIRED,
        _compat.TS_COMPLETED,
        _compat.TS_FAILED,
        _compat.TS_CANCELED,
        _compat.TS_REJECTED,
    }
)
"""States that end the current exchange (a pause included): worth an event even when empty."""

_Converter = Callable[
    [Any, str | None, InvocationContext | None, A2APartToGenAIPartConverter], Event | None
]
A2AMessageToEventConverter = _Converter
A2ATaskToEventConverter = _Converter
A2AStatusUpdateToEventConverter = _Converter
A2AArtifactUpdateToEventConverter = _Converter

_DEFAULT_AUTHOR = "a2a agent"


def _convert_parts(
    a2a_parts: Iterable[Any], part_converter: A2APartToGenAIPartConverter
) -> tuple[list[genai_types.Part], set[str]]:
    """(genai parts, ids of the long-running calls among them); bad parts are skipped."""
    parts: list[genai_types.Part] = []
    long_running: set[str] = set()
    lr_key = _get_adk_metadata_key(A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY)
    for a2a_part in a2a_parts:
        try:
            converted = part_converter(a2a_part)
        except Exception as exc:  # a peer's odd part must not sink the whole message
            logger.warning("Skipping an A2A part that failed to convert: %s", type(exc).__name__)
            continue
        if not isinstance(converted, list):
            converted = [converted] if converted else []
        if _compat.part_metadata(a2a_part).get(lr_key) is True:
            long_running.update(
                p.function_call.id for p in converted if p.function_call and p.function_call.id
            )
        parts.extend(converted)
    return parts, long_running


def _make_event(
    parts: list[genai_types.Part],
    ctx: InvocationContext | None,
    author: str | None,
    *,
    long_running: set[str] | None = None,
    role: str = "model",
    partial: bool | None = None,
) -> Event:
    return Event(
        invocation_id=ctx.invocation_id if ctx is not None else str(uuid.uuid4()),
        author=author or _DEFAULT_AUTHOR,
        branch=ctx.branch if ctx is not None else None,
        content=genai_types.Content(role=role, parts=parts),
        long_running_tool_ids=long_running or None,
        partial=partial,
    )


def _user_input_prompt(part: genai_types.Part) -> Any:
    """The question a converted part asks the user (its text, or a wrapped data value)."""
    if part.text:
        return part.text
    blob = part.inline_data
    if blob is None or blob.data is None or blob.mime_type != A2A_DATA_PART_TEXT_MIME_TYPE:
        return None
    data = blob.data
    if not (data.startswith(A2A_DATA_PART_START_TAG) and data.endswith(A2A_DATA_PART_END_TAG)):
        return None
    try:
        decoded = json.loads(data[len(A2A_DATA_PART_START_TAG) : -len(A2A_DATA_PART_END_TAG)])
    except ValueError:
        return None
    return decoded.get("data") if isinstance(decoded, dict) else None


def _create_mock_function_call_for_required_user_input(
    state: Any, output_parts: list[genai_types.Part], long_running_function_ids: set[str]
) -> tuple[list[genai_types.Part], set[str]]:
    """Turn a peer's input/auth-required question into a long-running call.

    A peer that pauses for the user without a call of its own (any non-ADK agent) asks in
    text; the last part with a question becomes a call named
    ``mock_function_call_for_required_user_input`` (or ``..._auth``) so the pause is a
    pending call like any other, answered by a function response the agent forwards.
    """
    if long_running_function_ids:
        return output_parts, long_running_function_ids
    if state == _compat.TS_INPUT_REQUIRED:
        name, key = MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_INPUT, "input_required"
    elif state == _compat.TS_AUTH_REQUIRED:
        name, key = MOCK_FUNCTION_CALL_FOR_REQUIRED_USER_AUTH, "auth_required"
    else:
        return output_parts, long_running_function_ids
    for index in range(len(output_parts) - 1, -1, -1):
        prompt = _user_input_prompt(output_parts[index])
        if prompt:
            call = genai_types.FunctionCall(id=str(uuid.uuid4()), name=name, args={key: prompt})
            output_parts[index] = genai_types.Part(function_call=call)
            return output_parts, {call.id or ""}
    return output_parts, long_running_function_ids


def _artifact_event_id(artifact_id: str, ctx: InvocationContext | None) -> str | None:
    """One event id for every chunk of an artifact in an invocation (None: a fresh id)."""
    if not artifact_id or ctx is None:
        return None
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"{ctx.invocation_id}:{artifact_id}"))


def convert_a2a_message_to_event(
    a2a_message: Message,
    author: str | None = None,
    invocation_context: InvocationContext | None = None,
    part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part,
) -> Event | None:
    """The event for a message (its parts, the long-running calls it marks).

    Raises:
        ValueError: ``a2a_message`` is None.
    """
    if a2a_message is None:
        raise ValueError("A2A message cannot be None")
    parts, long_running = _convert_parts(a2a_message.parts, part_converter)
    role = _compat.role_to_str(a2a_message.role)
    return _make_event(parts, invocation_context, author, long_running=long_running, role=role)


def _task_message(task: Task) -> Message | None:
    """What a task says.

    Its artifacts' parts, else its status message, else its last agent message in history.
    """
    if task.artifacts:
        parts = [part for artifact in task.artifacts for part in artifact.parts]
        return _compat.make_message(message_id="", role="agent", parts=parts)
    status_message = _compat.normalize_message(task.status.message)
    if status_message is not None and status_message.parts:
        return status_message  # type: ignore[no-any-return]
    agent_messages = [m for m in task.history if m.role == _compat.ROLE_AGENT]
    return agent_messages[-1] if agent_messages else None


def convert_a2a_task_to_event(
    a2a_task: Task,
    author: str | None = None,
    invocation_context: InvocationContext | None = None,
    part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part,
) -> Event | None:
    """The event for a whole task (a finished task's answer skips summarization).

    Raises:
        ValueError: ``a2a_task`` is None.
    """
    if a2a_task is None:
        raise ValueError("A2A task cannot be None")
    message = _task_message(a2a_task)
    if message is None:  # nothing said yet (a task just submitted)
        nothing = _make_event([], invocation_context, author)
        nothing.content = None
        return nothing
    event = convert_a2a_message_to_event(message, author, invocation_context, part_converter)
    finished = (_compat.TS_COMPLETED, _compat.TS_FAILED, _compat.TS_CANCELED)
    has_parts = event is not None and event.content is not None and bool(event.content.parts)
    if event is not None and has_parts and a2a_task.status.state in finished:
        event.actions.skip_summarization = True
    return event


def convert_a2a_status_update_to_event(
    a2a_status_update: TaskStatusUpdateEvent,
    author: str | None = None,
    invocation_context: InvocationContext | None = None,
    part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part,
) -> Event | None:
    """The event for a status update: its message, a pause turned into a long-running call.

    None for an update without parts that does not end the exchange (progress only).

    Raises:
        ValueError: ``a2a_status_update`` is None.
    """
    if a2a_status_update is None:
        raise ValueError("A2A status update cannot be None")
    state = a2a_status_update.status.state
    message = _compat.normalize_message(a2a_status_update.status.message)
    parts: list[genai_types.Part] = []
    long_running: set[str] = set()
    if message is not None:
        parts, long_running = _convert_parts(message.parts, part_converter)
    parts, long_running = _create_mock_function_call_for_required_user_input(
        state, parts, long_running
    )
    if not parts and state not in _TASK_RESPONSE_BOUNDARY_STATES:
        return None
    return _make_event(parts, invocation_context, author, long_running=long_running)


def convert_a2a_artifact_update_to_event(
    a2a_artifact_update: TaskArtifactUpdateEvent,
    author: str | None = None,
    invocation_context: InvocationContext | None = None,
    part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part,
) -> Event | None:
    """The event for one artifact chunk (partial until the artifact's last chunk).

    Every chunk of one artifact gets the same event id in an invocation. None when the
    chunk carries nothing convertible.

    Raises:
        ValueError: ``a2a_artifact_update`` is None.
    """
    if a2a_artifact_update is None:
        raise ValueError("A2A artifact update cannot be None")
    artifact = a2a_artifact_update.artifact
    parts, long_running = _convert_parts(artifact.parts, part_converter)
    if not parts:
        return None
    event = _make_event(
        parts,
        invocation_context,
        author,
        long_running=long_running,
        partial=not a2a_artifact_update.last_chunk,
    )
    event_id = _artifact_event_id(artifact.artifact_id, invocation_context)
    if event_id:
        event.id = event_id
    return event
