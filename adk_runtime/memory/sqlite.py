"""``SqliteMemoryService(db_path)``: google-adk's name for SQLite memory, by file path.

It is :class:`~adk_runtime.memory.database.DatabaseMemoryService` on
``sqlite+aiosqlite:///<db_path>`` (ranked FTS5 search, the sessions' migrations), so sessions
and memory may share the file. It does not read a database written by google-adk's own
SQLite memory service (its tables differ).
"""

from __future__ import annotations

import os
from typing import Any

from adk_runtime.memory.database import DatabaseMemoryService
from adk_runtime.sessions.sqlite_session_service import sqlite_url

__all__ = ["SqliteMemoryService"]


class SqliteMemoryService(DatabaseMemoryService):
    """A ``DatabaseMemoryService`` on the SQLite file ``db_path`` (``":memory:"`` allowed)."""

    def __init__(
        self, db_path: str | os.PathLike[str], *, max_results: int = 100, **kwargs: Any
    ) -> None:
        """Open the memory stored in ``db_path``; ``kwargs`` go to ``DatabaseMemoryService``.

        A ``sqlite://`` or ``sqlite+aiosqlite://`` URL is accepted as well as a path.
        """
        super().__init__(sqlite_url(db_path), max_results=max_results, **kwargs)
