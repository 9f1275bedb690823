"""A database handle with a lazy schema check, shared by every SQL service.

The schema is checked (or migrated, with ``auto_migrate``) on first use, once, for the
session, artifact and memory services alike: SQLite upgrades itself by default, a server
database must be upgraded with ``adk-runtime db upgrade``. A service is built from a URL (it
owns its engine) or from an engine the caller shares with other services.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine
from typing_extensions import Self

from adk_runtime.errors import DatabaseUrlError
from adk_runtime.sql.engine import Database, create_engine
from adk_runtime.sql.migrate import ensure_schema
from adk_runtime.sql.url import ASYNC_DRIVERS

__all__ = ["SqlHandle", "SqlService"]


def _database(
    db_url: str | None,
    db_engine: AsyncEngine | None,
    engine_kwargs: Any,
    service_options: Collection[str],
) -> Database:
    if (db_url is None) == (db_engine is None):
        raise DatabaseUrlError(
            "Exactly one of 'db_url' or 'db_engine' must be provided: pass either the "
            "database URL or an engine."
        )
    if db_engine is None:
        assert db_url is not None
        engine = create_engine(db_url, service_options=service_options, **engine_kwargs)
        return Database(engine, owns_engine=True)
    dialect = db_engine.dialect
    if ASYNC_DRIVERS.get(dialect.name) != dialect.driver:
        raise DatabaseUrlError(
            f"db_engine uses {dialect.name}+{dialect.driver}; adk_runtime supports "
            "sqlite+aiosqlite and postgresql+asyncpg engines."
        )
    return Database(db_engine, owns_engine=False)


class SqlHandle:
    """A :class:`Database` whose schema is ensured on first :meth:`open`."""

    def __init__(
        self,
        db_url: str | None,
        db_engine: AsyncEngine | None,
        auto_migrate: bool | None,
        engine_kwargs: Any,
        service_options: Collection[str] = (),
    ) -> None:
        """Wrap ``db_engine``, or create an engine for ``db_url`` (nothing connects yet).

        ``service_options``: the query options the service took out of ``db_url`` itself,
        named with the engine's when the URL carries an unknown one.
        """
        self._db = _database(db_url, db_engine, engine_kwargs, service_options)
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
        """Dispose the engine if this handle created it."""
        await self._db.dispose()


class SqlService:
    """What every SQL-backed artifact and memory service shares: its making and closing.

    It is built from a URL or an engine, its schema is checked on first use (see
    :class:`SqlHandle`), and it is closed the same way. A subclass reaches the database through
    ``self._sql``.

    Args:
        db_url: ``sqlite+aiosqlite:///path.db`` (or ``sqlite:///…``),
            ``postgresql+asyncpg://user@host/db`` (or ``postgresql://…``).
        db_engine: An async engine to use instead of ``db_url``, e.g. the one the session
            service uses (not disposed by :meth:`close`).
        auto_migrate: Upgrade the schema on first use. Defaults to True for SQLite and False
            for PostgreSQL (run ``adk-runtime db upgrade --url URL`` there).
        **engine_kwargs: Passed to :func:`sqlalchemy.ext.asyncio.create_async_engine`.
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        db_engine: AsyncEngine | None = None,
        auto_migrate: bool | None = None,
        **engine_kwargs: Any,
    ) -> None:
        """Create the service; the schema is checked (or migrated) on first use."""
        self._sql = SqlHandle(db_url, db_engine, auto_migrate, engine_kwargs)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> Self:
        """Build the service for a SQLite or PostgreSQL URL."""
        return cls(url, **kwargs)

    async def prepare(self) -> None:
        """Check (or migrate) the schema now instead of on first use."""
        await self._sql.open()

    async def close(self) -> None:
        """Dispose the engine if the service created it."""
        await self._sql.close()
