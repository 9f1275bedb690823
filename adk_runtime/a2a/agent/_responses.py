"""A peer's stream items as events (google-adk's two readings: its own and the newer one)."""

from __future__ import annotations

from typing import Any

from adk_runtime.a2a import _compat
from adk_runtime.a2a._compat import Message, TaskArtifactUpdateEvent, TaskStatusUpdateEvent
from adk_runtime.a2a.agent._history import A2A_METADATA_PREFIX
from adk_runtime.a2a.agent.config import A2aRemoteAgentConfig
from adk_runtime.a2a.converters.part_converter import A2APartToGenAIPartConverter
from adk_runtime.a2a.converters.to_adk_event import (
    _TASK_RESPONSE_BOUNDARY_STATES,
    _artifact_event_id,
    _create_mock_function_call_for_required_user_input,
    convert_a2a_message_to_event,
    convert_a2a_task_to_event,
)
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event

_IN_PROGRESS = (_compat.TS_SUBMITTED, _compat.TS_WORKING)


def _as_thoughts(event: Event) -> None:
    for part in event.content.parts or [] if event.content else []:
        part.thought = True


def _pause_as_call(event: Event, state: Any) -> None:
    if event.content is None:
        return
    parts, ids = _create_mock_function_call_for_required_user_input(
        state, list(event.content.parts or []), set(event.long_running_tool_ids or ())
    )
    event.content.parts = parts
    event.long_running_tool_ids = ids or None


def _stamp(event: Event, task_id: str | None, context_id: str | None) -> Event:
    metadata = dict(event.custom_metadata or {})
    if task_id is not None:
        metadata[A2A_METADATA_PREFIX + "task_id"] = task_id
    if context_id:
        metadata[A2A_METADATA_PREFIX + "context_id"] = context_id
    event.custom_metadata = metadata
    return event


def _from_whole_task(task: Any, name: str, ctx: InvocationContext, converter: Any) -> Event | None:
    # A whole task: a non-streaming answer, or the first item of a stream.
    event = convert_a2a_task_to_event(task, name, ctx, converter)
    if event is None:
        return None
    if task.status.state in _IN_PROGRESS and event.content and event.content.parts:
        _as_thoughts(event)
    _pause_as_call(event, task.status.state)
    return event


def _from_status(
    update: TaskStatusUpdateEvent, name: str, ctx: InvocationContext, converter: Any
) -> Event | None:
    message = _compat.normalize_message(update.status.message) if update.status else None
    if message is not None and message.parts:
        event = convert_a2a_message_to_event(message, name, ctx, converter)
        if event is None:
            return None
        if update.status.state in _IN_PROGRESS:
            _as_thoughts(event)
        _pause_as_call(event, update.status.state)
        return event
    if update.status.state in _TASK_RESPONSE_BOUNDARY_STATES:
        # A bare pause or end still closes the exchange: record it.
        return Event(author=name, invocation_id=ctx.invocation_id, branch=ctx.branch)
    return None


def _from_artifact(
    update: TaskArtifactUpdateEvent, name: str, ctx: InvocationContext, converter: Any
) -> Event | None:
    # Only this chunk's parts: earlier chunks were already streamed.
    if not update.artifact.parts:
        return None
    chunk = _compat.make_message(message_id="", role="agent", parts=update.artifact.parts)
    event = convert_a2a_message_to_event(chunk, name, ctx, converter)
    if event is None:
        return None
    event.partial = not update.last_chunk
    event_id = _artifact_event_id(update.artifact.artifact_id, ctx)
    if event_id:
        event.id = event_id
    return event


def _from_task_item(
    task: Any, update: Any, name: str, ctx: InvocationContext, converter: Any
) -> Event | None:
    if update is None:
        return _from_whole_task(task, name, ctx, converter)
    if isinstance(update, TaskStatusUpdateEvent):
        return _from_status(update, name, ctx, converter)
    if isinstance(update, TaskArtifactUpdateEvent):
        return _from_artifact(update, name, ctx, converter)
    return None


def convert_response(
    response: Any, name: str, ctx: InvocationContext, part_converter: A2APartToGenAIPartConverter
) -> Event | None:
    """google-adk's own reading of a stream item (peers without the newer extension)."""
    if isinstance(response, tuple):
        task, update = response
        event = _from_task_item(task, update, name, ctx, part_converter)
        if event is None:
            return None
        _stamp(event, task.id, task.context_id)
    elif isinstance(response, Message):
        event = convert_a2a_message_to_event(response, name, ctx, part_converter)
        if event is None:
            return None
        _stamp(event, None, response.context_id)
    else:
        return unknown_response(name, ctx)
    # Answers drop their thoughts; progress made only of thoughts keeps them.
    if event.content is not None and event.content.parts:
        answer = [part for part in event.content.parts if not part.thought]
        if answer:
            event.content.parts = answer
    return event


def convert_response_v2(
    response: Any, name: str, ctx: InvocationContext, config: A2aRemoteAgentConfig
) -> Event | None:
    """The newer reading: each item kind goes to the config's converter for it."""
    part_converter = config.a2a_part_converter
    if isinstance(response, tuple):
        task, update = response
        if update is None:
            event = config.a2a_task_converter(task, name, ctx, part_converter)
        elif isinstance(update, TaskStatusUpdateEvent):
            event = config.a2a_status_update_converter(update, name, ctx, part_converter)
        elif isinstance(update, TaskArtifactUpdateEvent):
            event = config.a2a_artifact_update_converter(update, name, ctx, part_converter)
        else:
            event = None
        return None if event is None else _stamp(event, task.id, task.context_id)
    if isinstance(response, Message):
        event = config.a2a_message_converter(response, name, ctx, part_converter)
        return None if event is None else _stamp(event, None, response.context_id)
    return unknown_response(name, ctx)


def unknown_response(name: str, ctx: InvocationContext) -> Event:
    """The error event for a stream item of no known kind."""
    return Event(
        author=name,
        error_message="Unknown A2A response type",
        invocation_id=ctx.invocation_id,
        branch=ctx.branch,
    )
