"""``DurableMemoryService``: a google-adk memory service over an adk_runtime store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.adk.events import Event as GoogleEvent
from google.adk.memory.base_memory_service import BaseMemoryService as GoogleBase
from google.adk.memory.base_memory_service import SearchMemoryResponse as GoogleResponse
from google.adk.memory.memory_entry import MemoryEntry as GoogleEntry
from google.adk.sessions import Session as GoogleSession

from adk_runtime.integrations.google_adk._adapter import DurableAdapter
from adk_runtime.integrations.google_adk._convert import from_google_event, from_google_session
from adk_runtime.integrations.google_adk._errors import google_errors_of
from adk_runtime.memory import BaseMemoryService, memory_service_from_url
from adk_runtime.memory.base import MemoryEntry

__all__ = ["DurableMemoryService"]


class DurableMemoryService(DurableAdapter[BaseMemoryService], GoogleBase):
    """google-adk's ``BaseMemoryService`` over any adk_runtime memory store.

    Args:
        uri: The store: ``adkrt+sqlite+aiosqlite:///app.db``, ``adkrt+postgresql+asyncpg://…``
            (or the same URL without ``adkrt+``).
        service: An adk_runtime memory service object to use instead (not closed by
            :meth:`close`).
        agents_dir: Ignored (google-adk's service registry passes it to every factory).
        **options: Passed to :func:`adk_runtime.memory.memory_service_from_url`.
    """

    _kind = "Memory"

    def _open(self, url: str, **options: Any) -> BaseMemoryService:
        return memory_service_from_url(url, **options)

    async def add_session_to_memory(self, session: GoogleSession) -> None:
        """Remember the session's events."""
        with google_errors_of():
            await self._service.add_session_to_memory(from_google_session(session))

    async def add_events_to_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        events: Sequence[GoogleEvent],
        session_id: str | None = None,
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Remember some events (those already stored are skipped)."""
        with google_errors_of():
            await self._service.add_events_to_memory(
                app_name=app_name,
                user_id=user_id,
                events=[from_google_event(event) for event in events],
                session_id=session_id,
                custom_metadata=custom_metadata,
            )

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[GoogleEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        """Store memory entries directly (when the store supports it)."""
        entries = [MemoryEntry.model_validate(entry.model_dump()) for entry in memories]
        with google_errors_of():
            await self._service.add_memory(
                app_name=app_name,
                user_id=user_id,
                memories=entries,
                custom_metadata=custom_metadata,
            )

    async def search_memory(self, *, app_name: str, user_id: str, query: str) -> GoogleResponse:
        """The user's memories in the app that match ``query``, best first."""
        with google_errors_of():
            found = await self._service.search_memory(
                app_name=app_name, user_id=user_id, query=query
            )
        return GoogleResponse(
            memories=[GoogleEntry.model_validate(entry.model_dump()) for entry in found.memories]
        )
