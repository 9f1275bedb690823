"""The history the model sees once compaction events are applied.

A compaction event (``actions.compaction``, see :class:`~.event_actions.EventCompaction`)
stands for the events committed before it whose timestamps fall in its range. In the view
built here its summary takes the place of those events; the events themselves stay stored.

Which summaries count: one whose range lies inside another's is superseded by it (of two
with the same range, the later one counts). Partly overlapping summaries both count, in
the order of their ranges. One whose range is inverted (start after end) counts for nothing.

What they hide: an event is hidden only by a counted summary committed *after* it. Events are
ordered by commit, not by timestamp, so an event a replica with a slow clock committed after
a summary is never hidden by that summary, even when its timestamp falls in the range.
"""

from __future__ import annotations

import bisect

from adk_runtime.events.event import Event
from adk_runtime.events.event_actions import EventCompaction

__all__ = ["counted_summaries", "is_compaction", "latest_summary", "uncovered", "view"]


def is_compaction(event: Event) -> bool:
    """Whether ``event`` is a compaction event (it carries a summary, not a message)."""
    return event.actions.compaction is not None


def counted_summaries(events: list[Event]) -> list[tuple[int, EventCompaction]]:
    """The compaction events that count (not superseded, not inverted), as ``(index, compaction)``.

    In commit order.
    """
    found = [
        (index, event.actions.compaction)
        for index, event in enumerate(events)
        if event.actions.compaction is not None
        and event.actions.compaction.start_timestamp <= event.actions.compaction.end_timestamp
    ]
    # Widest first among equal starts, latest first among equal ranges: a range is counted
    # when it reaches past every range that starts at or before it.
    ordered = sorted(found, key=_widest_latest_first)
    counted: set[int] = set()
    reach: float | None = None
    for index, compaction in ordered:
        if reach is None or compaction.end_timestamp > reach:
            counted.add(index)
            reach = compaction.end_timestamp
    return [item for item in found if item[0] in counted]


def _widest_latest_first(item: tuple[int, EventCompaction]) -> tuple[float, float, int]:
    index, compaction = item
    return (compaction.start_timestamp, -compaction.end_timestamp, -index)


def latest_summary(events: list[Event]) -> tuple[int, EventCompaction] | None:
    """The counted compaction event committed last, if any."""
    counted = counted_summaries(events)
    return counted[-1] if counted else None


def uncovered(events: list[Event]) -> list[Event]:
    """The events no counted summary stands for, compaction events left out, in order."""
    counted = counted_summaries(events)
    hidden = _hidden(events, counted) if counted else set()
    return [
        event
        for index, event in enumerate(events)
        if index not in hidden and not is_compaction(event)
    ]


def view(events: list[Event], agent_name: str) -> list[Event]:
    """``events`` with each counted summary in place of the events it stands for.

    A summary appears as an event of ``agent_name`` (the model reads it as its own earlier
    words), where the first event it hides was; one that hides nothing appears where it was
    committed. Compaction events themselves are left out. Without any, ``events`` itself.
    """
    if not any(event.actions.compaction is not None for event in events):
        return events  # the common case, at the cost of one attribute read per event
    counted = counted_summaries(events)
    if not counted:
        return [event for event in events if not is_compaction(event)]
    hidden = _hidden(events, counted)
    by_start = sorted(counted, key=lambda item: (item[1].start_timestamp, item[1].end_timestamp))
    shown: set[int] = set()
    next_summary = 0
    result: list[Event] = []
    summary_at = dict(counted)
    for index, event in enumerate(events):
        if index in hidden:
            # Summaries whose range starts at or before this hidden event go here.
            while next_summary < len(by_start) and (
                by_start[next_summary][1].start_timestamp <= event.timestamp
            ):
                summary_index, compaction = by_start[next_summary]
                next_summary += 1
                if summary_index not in shown:
                    shown.add(summary_index)
                    result.append(_as_event(events[summary_index], compaction, agent_name))
            continue
        if is_compaction(event):
            if index in summary_at and index not in shown:
                shown.add(index)
                result.append(_as_event(event, summary_at[index], agent_name))
            continue
        result.append(event)
    return result


def _hidden(events: list[Event], counted: list[tuple[int, EventCompaction]]) -> set[int]:
    """The indexes of the events a counted summary committed after them covers."""
    summary_at = dict(counted)
    starts: list[float] = []  # disjoint, sorted coverage of the summaries seen so far
    ends: list[float] = []
    hidden: set[int] = set()
    for index in range(len(events) - 1, -1, -1):
        compaction = summary_at.get(index)
        if compaction is not None:
            _cover(starts, ends, compaction.start_timestamp, compaction.end_timestamp)
            continue
        if is_compaction(events[index]):
            continue
        timestamp = events[index].timestamp
        slot = bisect.bisect_right(starts, timestamp) - 1
        if slot >= 0 and timestamp <= ends[slot]:
            hidden.add(index)
    return hidden


def _cover(starts: list[float], ends: list[float], start: float, end: float) -> None:
    """Add ``[start, end]`` to the disjoint sorted intervals, merging what it overlaps."""
    first = bisect.bisect_left(ends, start)  # first interval ending at or after ``start``
    last = bisect.bisect_right(starts, end)  # intervals from here on start after ``end``
    if first < last:
        start = min(start, starts[first])
        end = max(end, ends[last - 1])
    starts[first:last] = [start]
    ends[first:last] = [end]


def _as_event(event: Event, compaction: EventCompaction, agent_name: str) -> Event:
    return Event(
        id=event.id,
        invocation_id=event.invocation_id,
        author=agent_name or "model",
        branch=event.branch,
        timestamp=compaction.end_timestamp,
        content=compaction.compacted_content,
    )
