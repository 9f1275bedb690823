"""Which events still count after rewinds (the log keeps every event, for audit).

A rewind event (``actions.rewind_before_invocation_id == X``) cancels itself and every event
from the first event of invocation ``X`` up to it. Rewinds can be rewound in turn: the walk
goes from the newest event back, skipping each cancelled span as a whole.
"""

from __future__ import annotations

from adk_runtime.events.event import Event

__all__ = ["live_events"]


def live_events(events: list[Event]) -> list[Event]:
    """``events`` without the ones rewinds cancelled, in order (the same list if none did)."""
    if not any(event.actions.rewind_before_invocation_id for event in events):
        return events
    first: dict[str, int] = {}
    for index, event in enumerate(events):
        first.setdefault(event.invocation_id, index)
    kept: list[Event] = []
    index = len(events) - 1
    while index >= 0:
        event = events[index]
        target = event.actions.rewind_before_invocation_id
        if target:
            start = first.get(target, index)
            index = min(start, index) - 1
            continue
        kept.append(event)
        index -= 1
    kept.reverse()
    return kept
