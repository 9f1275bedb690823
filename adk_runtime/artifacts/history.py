"""Which version of a session's artifact was current at a point of its history.

A rewind restores each artifact to its version at the rewind point, and a fork copies each
artifact up to its version at the fork point. Events do not record every version: a file
uploaded through the artifact service (or the HTTP server) is named by no event. So the
version current at a point is found from the store itself, with the events as a guide:

- a version named by an ``artifact_delta`` of an event before the point existed then;
- a version first named by an event at or after the point did not (a message's own input
  blobs are saved just before its event is made);
- any other version existed then if it was created before the point: before the timestamp of
  the first event after it (every version, if no event follows).

The version current then is the newest that existed then. Creation times come from the
clock of the process that saved the version and event timestamps from the clock of the one
that made the event, so replicas whose clocks disagree by more than the time between an
upload and the next message may place an unnamed upload on the wrong side of the point.

A version that was current at a point may have been deleted since (``delete_artifact``
removes every version): then nothing is restored for it.

A rewind marks an artifact that did not exist at its point by saving
:func:`rewind_tombstone` as a new version (google-adk's marker, so its history stays); every
store loads such a version as absent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Protocol

from google.genai import types

from adk_runtime.artifacts.base import USER_PREFIX
from adk_runtime.events import Event

__all__ = ["HistoryPoint", "StoredVersion", "is_rewind_tombstone", "rewind_tombstone"]


class StoredVersion(Protocol):
    """What :meth:`HistoryPoint.current` reads of a stored version (an ``ArtifactVersion``)."""

    @property
    def version(self) -> int:
        """The version number."""
        ...

    @property
    def create_time(self) -> float:
        """When it was saved (Unix seconds)."""
        ...


_TOMBSTONE_MIME = "application/octet-stream"


def rewind_tombstone() -> types.Part:
    """The part a rewind saves for an artifact that did not exist at its point (loads as None).

    google-adk's marker (an empty ``application/octet-stream`` blob): an artifact saved with
    exactly that content also loads as absent, as in google-adk.
    """
    return types.Part(inline_data=types.Blob(mime_type=_TOMBSTONE_MIME, data=b""))


def is_rewind_tombstone(part: types.Part) -> bool:
    """Whether ``part`` is the marker of :func:`rewind_tombstone`."""
    blob = part.inline_data
    return (
        blob is not None
        and blob.mime_type == _TOMBSTONE_MIME
        and not blob.data
        and blob.display_name is None
        and part.model_dump(exclude_none=True, exclude={"inline_data"}) == {}
    )


@dataclasses.dataclass(frozen=True)
class HistoryPoint:
    """A point in a session's history (between two of its events).

    Attributes:
        named_before: Per filename, the versions named by events before the point.
        named_after: Per filename, the versions named by events at or after it.
        time: The timestamp of the first event after the point (None: no event follows).
    """

    named_before: dict[str, frozenset[int]]
    named_after: dict[str, frozenset[int]]
    time: float | None

    @classmethod
    def of(cls, events: Sequence[Event], position: int) -> HistoryPoint:
        """The point before ``events[position]`` (after the last event when it is the length)."""
        following = events[position] if position < len(events) else None
        return cls(
            named_before=_named(events[:position]),
            named_after=_named(events[position:]),
            time=None if following is None else following.timestamp,
        )

    def session_files(self) -> set[str]:
        """The session-scoped filenames the events name (on either side of the point)."""
        return {
            name
            for name in (*self.named_before, *self.named_after)
            if not name.startswith(USER_PREFIX)
        }

    def current(self, filename: str, versions: Sequence[StoredVersion]) -> int | None:
        """The version of ``filename`` current at the point, among the stored ``versions``."""
        before = self.named_before.get(filename, frozenset())
        after = self.named_after.get(filename, frozenset()) - before
        then = [
            v.version
            for v in versions
            if v.version in before
            or (v.version not in after and (self.time is None or v.create_time < self.time))
        ]
        return max(then, default=None)


def _named(events: Sequence[Event]) -> dict[str, frozenset[int]]:
    named: dict[str, set[int]] = {}
    for event in events:
        for filename, version in event.actions.artifact_delta.items():
            named.setdefault(filename, set()).add(version)
    return {filename: frozenset(versions) for filename, versions in named.items()}
