"""Which events count after rewinds: the whole list, and newest first read lazily."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from adk_runtime.events import Event, EventActions
from adk_runtime.events.rewind import live_events, live_events_newest_first


def _event(invocation: str, rewind: str | None = None) -> Event:
    return Event(
        invocation_id=invocation,
        author="agent",
        actions=EventActions(rewind_before_invocation_id=rewind),
    )


def _ids(events: Any) -> list[str]:
    return [e.invocation_id for e in events]


def test_a_rewind_cancels_its_span_and_itself() -> None:
    events = [_event("a"), _event("b"), _event("b"), _event("c"), _event("r", rewind="b")]
    events.append(_event("d"))
    assert _ids(live_events(events)) == ["a", "d"]
    assert _ids(live_events_newest_first(events)) == ["d", "a"]


def test_a_rewound_rewind_brings_nothing_back_twice() -> None:
    events = [
        _event("a"),
        _event("b"),
        _event("r1", rewind="b"),
        _event("c"),
        _event("r2", rewind="c"),
        _event("d"),
    ]
    assert _ids(live_events(events)) == ["a", "d"]
    assert _ids(live_events_newest_first(events)) == ["d", "a"]


def test_newest_first_matches_the_full_walk_on_every_small_history() -> None:
    names = ["a", "b", "c"]
    for length in range(1, 6):
        for pattern in itertools.product([*names, "rw-a", "rw-b", "rw-c"], repeat=length):
            events = [
                _event(f"r{i}", rewind=item[3:]) if item.startswith("rw-") else _event(item)
                for i, item in enumerate(pattern)
            ]
            expected = list(reversed(live_events(events)))
            assert list(live_events_newest_first(events)) == expected, pattern


class CountingList(list[Event]):
    """A list that counts the items read by index."""

    reads = 0

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, int):
            self.reads += 1
        return super().__getitem__(index)

    def __iter__(self) -> Iterator[Event]:
        raise AssertionError("the whole conversation was walked")


def test_reading_the_newest_live_event_does_not_walk_the_conversation() -> None:
    events = CountingList(_event(f"i{n}") for n in range(10_000))
    newest = next(live_events_newest_first(events))
    assert newest.invocation_id == "i9999"
    assert events.reads <= 2
