"""Finding the event that made a function call, by the call's id."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adk_runtime.events.event import Event

__all__ = ["calling_event"]


def calling_event(events: Sequence[Event], call_ids: str | Collection[str]) -> Event | None:
    """The latest event of ``events`` holding a function call with one of ``call_ids``."""
    ids = {call_ids} if isinstance(call_ids, str) else call_ids
    if not ids:
        return None
    for event in reversed(events):
        if any(call.id in ids for call in event.get_function_calls()):
            return event
    return None
