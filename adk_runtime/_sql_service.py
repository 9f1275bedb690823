"""The database handle the SQL artifact and memory services share: lazy schema check.

The schema is checked (or migrated, with ``auto_migrate``) on first use, once, like the SQL
session service: SQLite upgrades itself by default, a server database must be upgraded with
``adk-runtime db upgrade``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from adk_runtime.sql.engine import Database, create_engine
from adk_runtime.sql.migrate import ensure_schema

__all__ = ["SqlHandle"]


class SqlHandle:
    """An owned :class:`Database` whose schema is ensured on first :meth:`open`."""

    def __init__(self, db_url: str, auto_migrate: bool | None, engine_kwargs: Any) -> None:
        """Create the engine for ``db_url`` (nothing is connected yet)."""
        self._db = Database(create_engine(db_url, **engine_kwargs), owns_engine=True)
        self._auto_migrate = self._db.dialect == "sqlite" if auto_migrate is None else auto_migrate
        self._ready = False
        self._lock = asyncio.Lock()

    @property
    def dialect(self) -> str:
        """``"sqlite"`` or ``"postgresql"``."""
        return self._db.dialect

    async def open(self) -> Database:
        """Return the database, checking (or migrating) its schema the first time."""
        if not self._ready:
            async with self._lock:
                if not self._ready:
                    await ensure_schema(self._db, auto_migrate=self._auto_migrate)
                    self._ready = True
        return self._db

    async def close(self) -> None:
        """Dispose the engine."""
        await self._db.dispose()
