"""Which events still count after rewinds (the log keeps every event, for audit).

A rewind event (``actions.rewind_before_invocation_id == X``) cancels itself and every event
from the first event of invocation ``X`` up to it. Rewinds can be rewound in turn: the walk
goes from the newest event back, skipping each cancelled span as a whole.
"""

from __future__ import annotations

from collections.abc import Iterator

from adk_runtime.events.event import Event

__all__ = ["live_events", "live_events_newest_first"]


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


def live_events_newest_first(events: list[Event]) -> Iterator[Event]:
    """The events :func:`live_events` keeps, newest first, lazily.

    Events after the newest rewind are all live (a rewind cancels only events before it), so
    a caller that stops early (looking for the last agent to speak, say) costs O(what it
    reads) instead of a walk over the whole conversation; the rest is worked out only if the
    walk reaches a rewind.
    """
    for index in range(len(events) - 1, -1, -1):
        if events[index].actions.rewind_before_invocation_id:
            yield from reversed(live_events(events[: index + 1]))
            return
        yield events[index]
