"""DatabaseMemoryService: remembered events with ranked full-text search, on SQLite/PostgreSQL.

Each event with text becomes one row of ``adk_memory_entries``; the database indexes it
(PostgreSQL ``tsvector`` + GIN, SQLite FTS5, see :mod:`._search`). Adding events inserts
only those not stored yet (``ON CONFLICT DO NOTHING`` on app, user, session and event id), in
one statement, so adding a session twice — or from two processes at once — duplicates nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from google.genai import types
from sqlalchemy import Table, delete
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from adk_runtime.errors import InputValidationError
from adk_runtime.memory._search import SEARCHES
from adk_runtime.memory._text import EventText, decode_metadata, iso_time
from adk_runtime.memory.base import EventMemoryService, MemoryEntry
from adk_runtime.memory.tables import memory_entries
from adk_runtime.sql.handle import SqlService

if TYPE_CHECKING:
    pass

__all__ = ["DatabaseMemoryService"]

# Both dialects' INSERT constructs have on_conflict_do_nothing.
_INSERT: dict[str, Callable[[Table], Any]] = {
    "sqlite": sqlite.insert,
    "postgresql": postgresql.insert,
}
_KEY = ["app_name", "user_id", "session_id", "event_id"]
_M = memory_entries.c


class DatabaseMemoryService(SqlService, EventMemoryService):
    """Memory in the same SQLite / PostgreSQL database and migrations as the sessions.

    Built as every SQL service is (see :class:`~adk_runtime.sql.handle.SqlService` for
    ``db_url``, ``db_engine``, ``auto_migrate`` and engine options), plus:

    Args:
        max_results: The most memories one search returns (the best ones).
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        db_engine: AsyncEngine | None = None,
        auto_migrate: bool | None = None,
        max_results: int = 100,
        **engine_kwargs: Any,
    ) -> None:
        """Create the service; the schema is checked (or migrated) on first use."""
        if isinstance(max_results, bool) or not isinstance(max_results, int) or max_results < 1:
            raise InputValidationError("max_results must be a positive integer.")
        super().__init__(db_url, db_engine=db_engine, auto_migrate=auto_migrate, **engine_kwargs)
        self._insert = _INSERT[self._sql.dialect]
        self._search = SEARCHES[self._sql.dialect]
        self.max_results = max_results

    async def _remember(
        self, app_name: str, user_id: str, session_id: str, found: list[EventText], metadata: str
    ) -> None:
        rows = [
            {
                "app_name": app_name,
                "user_id": user_id,
                "session_id": session_id,
                "event_id": event.id,
                "author": event.author,
                "timestamp": event.timestamp,
                "content": content,
                "text": text,
                "custom_metadata": metadata,
            }
            for event, text, content in found
        ]
        statement = self._insert(memory_entries).on_conflict_do_nothing(index_elements=_KEY)
        db = await self._sql.open()
        async with db.write() as connection:
            await connection.execute(statement, rows)

    async def _forget(self, app_name: str, user_id: str, memory_id: str) -> None:
        statement = delete(memory_entries).where(
            _M.app_name == app_name, _M.user_id == user_id, _M.event_id == memory_id
        )
        db = await self._sql.open()
        async with db.write() as connection:
            await connection.execute(statement)

    async def _recall(self, app_name: str, user_id: str, words: list[str]) -> list[MemoryEntry]:
        params = {
            "query": self._search.spell(words),
            "app": app_name,
            "user": user_id,
            "limit": self.max_results,
        }
        db = await self._sql.open()
        async with db.autocommit() as connection:
            rows = (await connection.execute(self._search.statement, params)).all()
        return [
            MemoryEntry(
                content=types.Content.model_validate_json(row.content),
                author=row.author,
                timestamp=iso_time(row.timestamp),
                id=row.event_id,
                custom_metadata=decode_metadata(row.custom_metadata),
            )
            for row in rows
        ]
