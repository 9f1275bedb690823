"""Async engines, tuned per dialect, and the two ways the runtime talks to a database.

:func:`create_engine` builds an engine from any accepted URL (see :mod:`.url`).
:func:`configure_engine` installs what every connection needs (also on an engine the caller
built): on SQLite, WAL, ``busy_timeout``, ``synchronous=NORMAL``, foreign keys, the
:func:`~adk_runtime.sql.types.json_merge` function, and ``BEGIN IMMEDIATE`` for write
transactions, so two processes on one file serialize their writers like two on PostgreSQL.

:class:`Database` wraps an engine: :meth:`Database.write` is one write transaction,
:meth:`Database.autocommit` runs single statements without a transaction round trip
(reads, and single-statement writes that are atomic by themselves). Both translate driver
errors (:mod:`.errors`). ``sqlite+aiosqlite:///:memory:`` uses one shared connection, so
:class:`Database` serializes its users with a lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import sqlite3
from collections.abc import AsyncIterator
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import QueuePool, StaticPool

from adk_runtime._slots import Slots
from adk_runtime.errors import BackendUnavailableError, DatabaseUrlError, redact_url
from adk_runtime.sql._logs import hide_values_in_driver_logs
from adk_runtime.sql.errors import is_driver_disconnect, translate_errors
from adk_runtime.sql.pool import POOL_DEFAULTS, split_pool_options
from adk_runtime.sql.types import SQLITE_JSON_MERGE, sqlite_json_merge
from adk_runtime.sql.url import is_sqlite, normalize_url, sqlite_is_memory

__all__ = ["BUSY_TIMEOUT_MS", "Database", "configure_engine", "create_engine"]

BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite writer waits for another process's write transaction (milliseconds)."""

_BEGIN_OPTION = "adk_sqlite_begin"
_CONFIGURED = "adk_runtime_configured"


def _json_dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def create_engine(url: str, **engine_kwargs: Any) -> AsyncEngine:
    """Create and configure an async engine for ``url``.

    Args:
        url: Any accepted database URL (normalized to the async driver). Pool knobs may be
            given as query parameters (see :mod:`.pool`).
        **engine_kwargs: Passed to :func:`sqlalchemy.ext.asyncio.create_async_engine`, after
            the pool defaults of :mod:`.pool` (which they override).

    Raises:
        DatabaseUrlError: The URL is not a supported database URL (a ConfigurationError).
    """
    normalized, engine_kwargs = split_pool_options(normalize_url(url), engine_kwargs)
    _require_driver(normalized)
    hide_values_in_driver_logs()
    # No SQL parameter (a state value, an event payload) in a log line or error message.
    options: dict[str, Any] = {"json_serializer": _json_dumps, "hide_parameters": True}
    if is_sqlite(normalized):
        # Every transaction ends explicitly (SQLAlchemy's, and the hand-written append's),
        # so the pool's extra rollback on check-in, a thread hop on aiosqlite, is skipped.
        options["pool_reset_on_return"] = None
        if sqlite_is_memory(normalized):
            options["poolclass"] = StaticPool
            engine_kwargs = {k: v for k, v in engine_kwargs.items() if k not in POOL_DEFAULTS}
    options.update(engine_kwargs)
    engine = create_async_engine(normalized, **options)
    configure_engine(engine)
    return engine


def _require_driver(url: str) -> None:
    """Raise DatabaseUrlError naming the extra when the URL's driver is not installed."""
    if is_sqlite(url):
        return
    try:
        importlib.import_module("asyncpg")
    except ImportError:
        raise DatabaseUrlError(
            f"{redact_url(url)!r} needs the PostgreSQL driver (asyncpg): "
            "pip install 'adk-runtime[postgres]'"
        ) from None


def configure_engine(engine: AsyncEngine) -> AsyncEngine:
    """Install the per-connection settings the runtime relies on (idempotent)."""
    sync_engine = engine.sync_engine
    if getattr(sync_engine, _CONFIGURED, False) or sync_engine.dialect.name != "sqlite":
        return engine
    setattr(sync_engine, _CONFIGURED, True)
    event.listen(sync_engine, "connect", _sqlite_connect)
    event.listen(sync_engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    # Let us emit BEGIN ourselves (the sqlite3 module's implicit BEGIN is DEFERRED).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        # The busy timeout first: switching to WAL needs the file's lock, which another
        # connection (or process) may hold for a moment; without it the switch fails at once.
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        _switch_to_wal(cursor)
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()
    dbapi_connection.create_function(SQLITE_JSON_MERGE, 2, sqlite_json_merge, deterministic=True)


def _switch_to_wal(cursor: Any) -> None:
    """Put the file in WAL mode, waiting for a writer that holds a new file's lock.

    While a file is still in rollback mode, SQLite refuses the switch with "database is
    locked" at once, without calling the busy handler, when another connection is writing
    to it (seen with 6 threads opening one new file: about 1 open in 2,000 failed). Then a
    ``BEGIN IMMEDIATE`` / ``ROLLBACK`` waits for that writer the way SQLite waits for any lock
    (the busy handler, up to the busy timeout, on the driver's thread: the event loop is not
    blocked), and the switch is tried again. The mode is stored in the file, so once any
    connection has converted it the switch is a no-op.
    """
    for _ in range(_WAL_ATTEMPTS - 1):
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "database is locked" not in str(error):
                raise
        cursor.execute("BEGIN IMMEDIATE")
        cursor.execute("ROLLBACK")
    cursor.execute("PRAGMA journal_mode=WAL")


_WAL_ATTEMPTS = 10


def _sqlite_begin(connection: Connection) -> None:
    mode = connection.get_execution_options().get(_BEGIN_OPTION, "IMMEDIATE")
    if mode:
        connection.exec_driver_sql(f"BEGIN {mode}")


def _pool_limit(engine: AsyncEngine) -> tuple[int, float] | None:
    """(connections the pool hands out at most, its timeout), or None when unbounded."""
    pool = engine.sync_engine.pool
    if not isinstance(pool, QueuePool):
        return None
    # QueuePool has no public accessor for max_overflow (negative: no bound).
    overflow = getattr(pool, "_max_overflow", -1)
    if not isinstance(overflow, int) or overflow < 0:
        return None
    return pool.size() + overflow, float(pool.timeout())


class Database:
    """An engine plus the transaction helpers every SQL service uses.

    Args:
        engine: A configured async engine (see :func:`create_engine`).
        owns_engine: Whether :meth:`dispose` disposes the engine.
    """

    def __init__(self, engine: AsyncEngine, *, owns_engine: bool) -> None:
        self.engine = configure_engine(engine)
        self.url = engine.url.render_as_string(hide_password=False)
        self.dialect = engine.dialect.name
        self.owns_engine = owns_engine
        if self.dialect == "sqlite":
            self._autocommit_engine = engine.execution_options(**{_BEGIN_OPTION: None})
        else:
            self._autocommit_engine = engine.execution_options(isolation_level="AUTOCOMMIT")
        shared = isinstance(engine.sync_engine.pool, StaticPool)
        self._shared = shared
        self._lock: asyncio.Lock | None = asyncio.Lock() if shared else None
        # SQLite has one writer per file: writers of this process take turns here (cheap)
        # instead of spinning on the file lock against each other (busy_timeout polling).
        # Across processes BEGIN IMMEDIATE still serializes them.
        self._serialize_writers = self.dialect == "sqlite" and not shared
        self._write_lock = asyncio.Lock()
        # The connection writers of this process use, in turn (SQLite files): held, not
        # checked out of the pool per append (that costs about 0.3 ms on SQLite).
        self._writer: tuple[AsyncConnection, Any, asyncio.AbstractEventLoop] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._limit = _pool_limit(engine)
        self._slots: Slots | None = None

    def _follow_loop(self) -> None:
        # asyncpg connections belong to the event loop that opened them. When the service
        # moves to another loop (``Runner.run`` runs each call on its own loop in a thread),
        # the pooled connections of the old loop are dropped and new ones are opened.
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None and self.dialect == "postgresql":
                self.engine.sync_engine.dispose(close=False)
            if self._loop is not None:
                self._write_lock = asyncio.Lock()
                self._lock = asyncio.Lock() if self._shared else None
            self._slots = None if self._limit is None else Slots(self._limit[0])
            self._loop = loop

    @contextlib.asynccontextmanager
    async def _checkout_turn(self) -> AsyncIterator[None]:
        """Wait for a pooled connection in line: first come, first served.

        The pool's own wait lets a newcomer take a connection just returned ahead of callers
        already waiting (who then queue again at the back), so under load a few callers
        waited far longer than the rest. Waiting here, up to the pool's timeout, keeps the
        order. No-op for pools without a bound.
        """
        slots = self._slots
        if slots is None or self._limit is None:
            yield
            return
        if not await slots.acquire(self._limit[1]):
            raise BackendUnavailableError(
                f"No free connection to {redact_url(self.url)} within the pool's timeout (all "
                "of the pool's connections in use); nothing was sent. Retry it, or raise "
                "pool_size or pool_timeout."
            )
        try:
            yield
        finally:
            slots.release()

    @contextlib.asynccontextmanager
    async def exclusive(self) -> AsyncIterator[None]:
        """Hold the shared connection of an in-memory SQLite database (no-op otherwise).

        Every use of the engine goes through here (it also follows the running event loop).
        """
        self._follow_loop()
        if self._lock is None:
            yield
            return
        async with self._lock:
            yield

    @contextlib.asynccontextmanager
    async def writer(self) -> AsyncIterator[None]:
        """Take this process's turn to write (SQLite files; a no-op elsewhere)."""
        if not self._serialize_writers:
            yield
            return
        async with self._write_lock:
            yield

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """One write transaction (``BEGIN IMMEDIATE`` on SQLite); commits unless it raises."""
        async with self.exclusive(), self.writer(), self._checkout_turn():
            with translate_errors(self.url):
                async with self.engine.begin() as connection:
                    yield connection

    @contextlib.asynccontextmanager
    async def autocommit(self) -> AsyncIterator[AsyncConnection]:
        """A connection whose statements each commit on their own (no transaction round trips).

        Use it for reads, and for writes made of one statement.
        """
        async with self.exclusive(), self._checkout_turn():
            with translate_errors(self.url):
                async with self._autocommit_engine.connect() as connection:
                    yield connection

    @contextlib.asynccontextmanager
    async def driver_connection(self, *, write: bool = False) -> AsyncIterator[Any]:
        """A pooled connection's driver object (aiosqlite / asyncpg) in autocommit mode.

        For hand-written hot paths: the caller ends any transaction it starts. Driver
        errors are translated; a connection the driver reports broken is discarded. With
        ``write=True`` the connection is held during this process's turn to write.
        """
        if write and self._serialize_writers:
            async with self.exclusive(), self._write_lock:
                with translate_errors(self.url):
                    held = await self._held_writer()
                    try:
                        yield held
                    except BaseException as error:
                        if is_driver_disconnect(error):
                            await self._release_writer(invalidate=True)
                        raise
            return
        writer = self.writer() if write else contextlib.nullcontext()
        async with self.exclusive(), writer, self._checkout_turn():
            with translate_errors(self.url):
                async with self._autocommit_engine.connect() as connection:
                    fairy = await connection.get_raw_connection()
                    try:
                        yield fairy.driver_connection
                    except BaseException as error:
                        # A cancelled asyncpg call leaves the connection mid-protocol.
                        cancelled = isinstance(error, asyncio.CancelledError)
                        if is_driver_disconnect(error) or (cancelled and self.dialect != "sqlite"):
                            await connection.invalidate()
                        raise

    async def _held_writer(self) -> Any:
        """The writers' connection (call with the write lock held), opened on first use."""
        loop = asyncio.get_running_loop()
        if self._writer is not None and self._writer[2] is not loop:
            await self._release_writer()
        if self._writer is None:
            connection = await self._autocommit_engine.connect()
            fairy = await connection.get_raw_connection()
            self._writer = (connection, fairy.driver_connection, loop)
        return self._writer[1]

    async def _release_writer(self, *, invalidate: bool = False) -> None:
        held, self._writer = self._writer, None
        if held is None:
            return
        with contextlib.suppress(Exception):  # a broken or foreign-loop connection: dropped
            if invalidate:
                await held[0].invalidate()
            await held[0].close()

    async def dispose(self) -> None:
        """Dispose the engine if this object created it (and return the writers' connection).

        Connections opened on another (possibly closed) event loop are dropped, not closed:
        closing them would need their own loop.
        """
        self._follow_loop()
        await self._release_writer()
        if self.owns_engine:
            await self.engine.dispose()
