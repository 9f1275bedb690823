"""InMemoryMemoryService: keyword search over remembered sessions, in process memory."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from adk_runtime.memory._text import event_text, memory_entry, query_words, words
from adk_runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from adk_runtime.sessions._validation import validate_id, validate_session_key

if TYPE_CHECKING:
    from adk_runtime.sessions.session import Session

__all__ = ["InMemoryMemoryService"]

_Remembered = tuple[frozenset[str], MemoryEntry]  # the event's words, its entry


class InMemoryMemoryService(BaseMemoryService):
    """Remembers the text of sessions' events; a query matches events sharing a word with it.

    Results are scoped by app and user and ranked by how many query words an event contains
    (ties keep the order the events were remembered in). Adding a session again replaces what
    was remembered of it, so nothing is duplicated.
    """

    def __init__(self) -> None:
        """Create an empty memory."""
        self._lock = threading.Lock()
        # (app, user) -> session id -> remembered events of that session
        self._memories: dict[tuple[str, str], dict[str, list[_Remembered]]] = {}

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> InMemoryMemoryService:
        """Build the memory for ``memory://``."""
        return cls(**kwargs)

    async def add_session_to_memory(self, session: Session) -> None:
        """Remember the text of the session's events (idempotent per session)."""
        validate_session_key(session.app_name, session.user_id, session.id)
        remembered: list[_Remembered] = []
        for event in session.events:
            text = event_text(event)
            if text:
                remembered.append((frozenset(words(text)), memory_entry(event)))
        with self._lock:
            user_memories = self._memories.setdefault((session.app_name, session.user_id), {})
            user_memories[session.id] = remembered

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
            sessions = list(self._memories.get((app_name, user_id), {}).values())
        scored = [
            (len(wanted & event_words), entry)
            for remembered in sessions
            for event_words, entry in remembered
            if wanted & event_words
        ]
        scored.sort(key=lambda item: -item[0])
        return SearchMemoryResponse(memories=[entry for _, entry in scored])
