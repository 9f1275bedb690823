"""InMemoryMemoryService: keyword search over remembered sessions, in process memory."""

from __future__ import annotations

import re
import threading
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from adk_runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from adk_runtime.sessions._validation import validate_id

if TYPE_CHECKING:
    from adk_runtime.sessions.session import Session

__all__ = ["InMemoryMemoryService"]

_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> set[str]:
    """Return the lower-cased words of ``text``."""
    return {word.lower() for word in _WORD.findall(text)}


class InMemoryMemoryService(BaseMemoryService):
    """Remembers the text of sessions' events; a query matches events sharing a word with it.

    Results are scoped by app and user and ranked by how many query words an event contains.
    Adding a session again replaces what was remembered of it (nothing is duplicated).
    """

    def __init__(self) -> None:
        """Create an empty memory."""
        self._lock = threading.Lock()
        # (app, user) -> session id -> [(event id, words, entry)]
        self._memories: dict[tuple[str, str], dict[str, list[tuple[set[str], MemoryEntry]]]] = {}

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> InMemoryMemoryService:
        """Build the memory for ``memory://``."""
        return cls(**kwargs)

    async def add_session_to_memory(self, session: Session) -> None:
        """Remember the text of the session's events (idempotent per session)."""
        entries: list[tuple[set[str], MemoryEntry]] = []
        for event in session.events:
            if event.content is None or not event.content.parts:
                continue
            text = " ".join(part.text for part in event.content.parts if part.text)
            if not text:
                continue
            entry = MemoryEntry(
                content=event.content,
                author=event.author,
                timestamp=datetime.fromtimestamp(event.timestamp, timezone.utc).isoformat(),
                id=event.id,
            )
            entries.append((words(text), entry))
        with self._lock:
            user_memories = self._memories.setdefault((session.app_name, session.user_id), {})
            user_memories[session.id] = entries

    async def search_memory(
        self, *, app_name: str, user_id: str, query: str
    ) -> SearchMemoryResponse:
        """Return the user's remembered events sharing words with ``query``, best first."""
        validate_id(app_name, "app_name")
        validate_id(user_id, "user_id")
        wanted = words(query)
        if not wanted:
            return SearchMemoryResponse()
        with self._lock:
            sessions = list(self._memories.get((app_name, user_id), {}).values())
        scored = [
            (len(wanted & event_words), entry)
            for entries in sessions
            for event_words, entry in entries
            if wanted & event_words
        ]
        scored.sort(key=lambda item: -item[0])
        return SearchMemoryResponse(memories=[entry for _, entry in scored])
