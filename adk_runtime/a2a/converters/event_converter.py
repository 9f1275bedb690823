"""Events to A2A messages, and google-adk's module path for the message and task converters."""

from __future__ import annotations

import uuid
from typing import Any

from adk_runtime.a2a import _compat
from adk_runtime.a2a._compat import Message
from adk_runtime.a2a._compat import Part as A2APart
from adk_runtime.a2a.converters.part_converter import (
    A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY,
    GenAIPartToA2APartConverter,
    convert_genai_part_to_a2a_part,
)
from adk_runtime.a2a.converters.to_adk_event import (
    convert_a2a_message_to_event,
    convert_a2a_task_to_event,
)
from adk_runtime.a2a.converters.utils import _get_adk_metadata_key
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = [
    "convert_a2a_message_to_event",
    "convert_a2a_task_to_event",
    "convert_event_to_a2a_message",
]


def _mark_long_running(a2a_part: A2APart, event: Event) -> None:
    """Tag a data part holding one of the event's long-running calls as such."""
    if not event.long_running_tool_ids or not _compat.is_data_part(a2a_part):
        return
    if _compat.data_part_dict(a2a_part).get("id") in event.long_running_tool_ids:
        meta = _compat.part_metadata(a2a_part)
        meta[_get_adk_metadata_key(A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY)] = True
        _compat.set_part_metadata(a2a_part, meta)


def convert_event_to_a2a_message(
    event: Event,
    invocation_context: InvocationContext | None = None,
    role: Any = _compat.ROLE_AGENT,
    part_converter: GenAIPartToA2APartConverter = convert_genai_part_to_a2a_part,
) -> Message | None:
    """The A2A message for an event's content, or None when nothing in it converts.

    Raises:
        ValueError: ``event`` is None.
    """
    del invocation_context  # google-adk's signature; the message needs nothing from it
    if event is None:
        raise ValueError("Event cannot be None")
    if not event.content or not event.content.parts:
        return None
    a2a_parts: list[A2APart] = []
    for part in event.content.parts:
        converted = part_converter(part)
        if not isinstance(converted, list):
            converted = [converted] if converted else []
        for a2a_part in converted:
            _mark_long_running(a2a_part, event)
            a2a_parts.append(a2a_part)
    if not a2a_parts:
        return None
    return _compat.make_message(message_id=str(uuid.uuid4()), role=role, parts=a2a_parts)
