"""InMemoryMemoryService: keyword search over remembered events, in process memory."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from adk_runtime._url_registry import check_query_options
from adk_runtime.memory._text import (
    EventText,
    decode_metadata,
    iso_time,
    remembered_content,
    words,
)
from adk_runtime.memory.base import EventMemoryService, MemoryEntry

if TYPE_CHECKING:
    from adk_runtime.events import Event

__all__ = ["InMemoryMemoryService"]

_Remembered = tuple[frozenset[str], MemoryEntry]  # the event's words, its entry
_EventKey = tuple[str, str]  # session id ("" when none was given), event id


class InMemoryMemoryService(EventMemoryService):
    """Remembers the text of events; a query matches events sharing a word with it.

    Results are scoped by app and user and ranked by how many query words an event contains
    (ties keep the order the events were remembered in). An event already remembered (same
    session and event id) is not stored again, so adding a session twice duplicates nothing.
    """

    def __init__(self) -> None:
        """Create an empty memory."""
        self._lock = threading.Lock()
        self._memories: dict[tuple[str, str], dict[_EventKey, _Remembered]] = {}

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> InMemoryMemoryService:
        """Build the memory for ``memory://`` (takes no options: a query is refused)."""
        check_query_options(url, (), what="memory://")
        return cls(**kwargs)

    async def _remember(
        self, app_name: str, user_id: str, session_id: str, found: list[EventText], metadata: str
    ) -> None:
        remembered = {
            (session_id, event.id): (frozenset(words(text)), _memory_entry(event, metadata))
            for event, text, _content in found
        }
        with self._lock:
            store = self._memories.setdefault((app_name, user_id), {})
            for key, value in remembered.items():
                store.setdefault(key, value)

    async def _forget(self, app_name: str, user_id: str, memory_id: str) -> None:
        with self._lock:
            store = self._memories.get((app_name, user_id), {})
            for key in [key for key in store if key[1] == memory_id]:
                del store[key]

    async def _recall(self, app_name: str, user_id: str, words: list[str]) -> list[MemoryEntry]:
        wanted = set(words)
        with self._lock:
            remembered = list(self._memories.get((app_name, user_id), {}).values())
        scored = [
            (len(wanted & event_words), entry)
            for event_words, entry in remembered
            if wanted & event_words
        ]
        scored.sort(key=lambda item: -item[0])
        return [entry for _, entry in scored]


def _memory_entry(event: Event, metadata: str) -> MemoryEntry:
    """Return the memory entry that remembers ``event`` (``metadata``: stored JSON)."""
    return MemoryEntry(
        content=remembered_content(event),
        author=event.author,
        timestamp=iso_time(event.timestamp),
        id=event.id,
        custom_metadata=decode_metadata(metadata),
    )
