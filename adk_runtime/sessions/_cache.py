"""A bounded LRU cache of recently read conversations, so a turn does not re-read history.

A chat turn reads its whole session (``get_session`` with no config). With the cache on, the
service keeps the decoded events of recently used sessions with the revision and identity
(incarnation) they were read at, and the next read fetches only the events after that
revision, in the same single round trip that reads the session row. Another process's
appends are picked up that way; a session deleted or re-created elsewhere has another
identity (or is gone) and is read in full again. So a turn on a 10,000-event conversation
costs what a turn on a 100-event one does.

What the cache hands out is always a fresh :class:`Session`: its ``events`` list and its
``state`` are new objects, so appending to, removing from or replacing items of them cannot
change the cache. The :class:`~adk_runtime.events.Event` objects themselves are shared
between reads: committed events are records, treat them as read-only (copy one to change it).

The size bound is in bytes of stored event JSON (what the events cost to hold, roughly); the
least recently used sessions are dropped first. A session larger than the whole bound is not
cached.
"""

from __future__ import annotations

import collections
import dataclasses
import threading

from adk_runtime.errors import ConfigurationError
from adk_runtime.events import Event

__all__ = ["DEFAULT_SERVER_CACHE_BYTES", "CachedSession", "SessionCache"]

DEFAULT_SERVER_CACHE_BYTES = 64 * 1024 * 1024
"""The cache ``adk-runtime serve`` gives its session service unless told otherwise."""

_Key = tuple[str, str, str]


@dataclasses.dataclass(frozen=True)
class CachedSession:
    """The events of one session as of ``revision``, for the incarnation ``identity``."""

    identity: str
    revision: int
    events: tuple[Event, ...]
    size: int


class SessionCache:
    """An LRU of :class:`CachedSession` bounded by ``max_bytes`` (thread-safe)."""

    def __init__(self, max_bytes: int) -> None:
        """Create an empty cache holding at most ``max_bytes`` of event JSON."""
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise ConfigurationError("cache_bytes must be a positive number of bytes.")
        self.max_bytes = max_bytes
        self._entries: collections.OrderedDict[_Key, CachedSession] = collections.OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def size(self) -> int:
        """Bytes held now."""
        return self._bytes

    def get(self, key: _Key) -> CachedSession | None:
        """Return the entry for ``key`` (and mark it recently used), or None."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is not None:
                self._entries.move_to_end(key)
            return entry

    def put(self, key: _Key, entry: CachedSession) -> None:
        """Store ``entry`` for ``key``, dropping the least recently used past the bound."""
        with self._lock:
            self._drop(key)
            if entry.size > self.max_bytes:
                return
            self._entries[key] = entry
            self._bytes += entry.size
            while self._bytes > self.max_bytes:
                self._drop(next(iter(self._entries)))

    def discard(self, key: _Key) -> None:
        """Forget ``key`` (e.g. its session was deleted)."""
        with self._lock:
            self._drop(key)

    def _drop(self, key: _Key) -> None:
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= old.size
