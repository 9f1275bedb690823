"""InMemoryMemoryService: keyword search over remembered events, in process memory."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from adk_runtime.errors import InputValidationError
from adk_runtime.memory._text import encode_metadata, memory_entry, query_words, texts_of, words
from adk_runtime.memory.base import EventMemoryService, MemoryEntry, SearchMemoryResponse
from adk_runtime.sessions._validation import validate_id

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
        """Build the memory for ``memory://``."""
        return cls(**kwargs)

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[Event],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Remember events with text; see :meth:`BaseMemoryService.add_events_to_memory`."""
        validate_id(app_name, "app_name")
        validate_id(user_id, "user_id")
        if session_id is not None:
            validate_id(session_id, "session_id")
        metadata = encode_metadata(custom_metadata)
        remembered = {
            (session_id or "", event.id): (frozenset(words(text)), memory_entry(event, metadata))
            for event, text, _content in texts_of(events)
        }
        with self._lock:
            store = self._memories.setdefault((app_name, user_id), {})
            for key, value in remembered.items():
                store.setdefault(key, value)

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        """Forget the user's memory with this id (an event id); unknown ids are ignored."""
        validate_id(app_name, "app_name")
        validate_id(user_id, "user_id")
        if memory_id is None:
            raise InputValidationError("memory_id is required.")
        validate_id(memory_id, "memory_id")
        with self._lock:
            store = self._memories.get((app_name, user_id), {})
            for key in [key for key in store if key[1] == memory_id]:
                del store[key]

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """Return the user's remembered events sharing words with ``query``, best first."""
        validate_id(app_name, "app_name")
        validate_id(user_id, "user_id")
        wanted = set(query_words(query))
        if not wanted:
            return SearchMemoryResponse()
        with self._lock:
            remembered = list(self._memories.get((app_name, user_id), {}).values())
        scored = [
            (len(wanted & event_words), entry)
            for event_words, entry in remembered
            if wanted & event_words
        ]
        scored.sort(key=lambda item: -item[0])
        return SearchMemoryResponse(memories=[entry for _, entry in scored])
