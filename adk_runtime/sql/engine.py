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
import weakref
from collections.abc import AsyncIterator, Callable, Collection
from typing import Any, TypeVar

from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine
from sqlalchemy.pool import PoolProxiedConnection, QueuePool, StaticPool

from adk_runtime._slots import Slots
from adk_runtime.errors import BackendUnavailableError, DatabaseUrlError, redact_url
from adk_runtime.sql._driver_options import split_driver_options
from adk_runtime.sql._logs import hide_values_in_driver_logs
from adk_runtime.sql._sqlite_settings import BUSY_TIMEOUT_MS, apply_settings
from adk_runtime.sql._sqlite_writer import (
    DbapiConnection,
    SqliteRunner,
    SqliteWriter,
    connect_args,
)
from adk_runtime.sql.errors import is_driver_disconnect, translate_errors
from adk_runtime.sql.pool import POOL_DEFAULTS, split_pool_options, take_query_option, url_knobs
from adk_runtime.sql.url import is_sqlite, normalize_url, sqlite_is_memory

__all__ = ["BUSY_TIMEOUT_MS", "Database", "configure_engine", "create_engine"]

_T = TypeVar("_T")

_BEGIN_OPTION = "adk_sqlite_begin"
_CONFIGURED = "adk_runtime_configured"


def _json_dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def create_engine(
    url: str, *, service_options: Collection[str] = (), **engine_kwargs: Any
) -> AsyncEngine:
    """Create and configure an async engine for ``url``.

    Args:
        url: Any accepted database URL (normalized to the async driver). Pool knobs and the
            driver's options may be given as query parameters (see :mod:`.pool` and
            :mod:`._driver_options`); any other name is refused.
        service_options: The query options of the service the URL is for (e.g.
            :data:`~adk_runtime.sql.url.SESSION_OPTIONS`): taken out of the URL, never passed
            to the driver (the service reads them), and named with the others when an option
            is unknown.
        **engine_kwargs: Passed to :func:`sqlalchemy.ext.asyncio.create_async_engine`, after
            the pool defaults of :mod:`.pool` (which they override).

    Raises:
        DatabaseUrlError: The URL is not a supported database URL (a ConfigurationError).
        ConfigurationError: A query option is unknown, or its value is invalid.
    """
    normalized = normalize_url(url)
    for name in service_options:
        normalized, _ = take_query_option(normalized, name)
    normalized, engine_kwargs = split_pool_options(normalized, engine_kwargs)
    sqlite = is_sqlite(normalized)
    known = (*url_knobs("sqlite" if sqlite else "postgresql"), *service_options)
    what = "SQLite" if sqlite else "PostgreSQL"
    normalized, connect_args = split_driver_options(normalized, known, what=what)
    if connect_args:
        engine_kwargs["connect_args"] = {**connect_args, **engine_kwargs.get("connect_args", {})}
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
    _record_pool_limit(engine, options)
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
    apply_settings(dbapi_connection)


def _sqlite_begin(connection: Connection) -> None:
    mode = connection.get_execution_options().get(_BEGIN_OPTION, "IMMEDIATE")
    if mode:
        connection.exec_driver_sql(f"BEGIN {mode}")


_POOL_LIMITS: weakref.WeakKeyDictionary[Engine, tuple[int, float]] = weakref.WeakKeyDictionary()
"""(connections at most, timeout) of each engine :func:`create_engine` built with a bounded
pool, from the options it was given (SQLAlchemy has no public accessor for ``max_overflow``)."""


def _record_pool_limit(engine: AsyncEngine, options: dict[str, Any]) -> None:
    overflow = options.get("max_overflow")
    if not isinstance(engine.sync_engine.pool, QueuePool) or overflow is None or overflow < 0:
        return
    size = int(options.get("pool_size", engine.sync_engine.pool.size()))
    timeout = float(options.get("pool_timeout", engine.sync_engine.pool.timeout()))
    _POOL_LIMITS[engine.sync_engine] = (size + int(overflow), timeout)


def _pool_limit(engine: AsyncEngine) -> tuple[int, float] | None:
    """(connections the pool hands out at most, its timeout), or None when not known.

    Known for the engines :func:`create_engine` built; an engine built elsewhere keeps its
    pool's own wait (no arrival order, see :meth:`Database._checkout_turn`).
    """
    return _POOL_LIMITS.get(engine.sync_engine)


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
        # The connection writers of this process use, in turn (SQLite files): our own, on a
        # thread of its own, opened on first use (see :meth:`sqlite_writer`).
        self._writer = SqliteWriter(*connect_args(engine)) if self._serialize_writers else None
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
    async def driver_connection(self) -> AsyncIterator[Any]:
        """A pooled connection's driver object (asyncpg / aiosqlite) in autocommit mode.

        For hand-written hot paths: reads, and single-statement writes on PostgreSQL (a
        SQLite write goes through :meth:`sqlite_writer`). Driver errors are translated; a
        connection the driver reports broken, or whose call was cancelled, is discarded.

        The connection is the pool's own (``AsyncEngine.raw_connection``), used without an
        SQLAlchemy ``Connection`` around it: that wrapper's set-up and tear-down (execution
        options, the autocommit characteristic, events) cost about twice the whole checkout
        and check-in (see ``bench/notes/cpu-profile.md``). The driver object is in autocommit
        mode by itself (asyncpg opens no transaction unless told), no SQLAlchemy transaction
        is ever begun on it, so returning it to the pool runs no statement, and invalidating
        it closes its socket at once: both are plain calls, no hop into a greenlet.
        """
        async with self.exclusive(), self._checkout_turn():
            with translate_errors(self.url):
                pooled = await self._raw_connection()
                try:
                    yield pooled.driver_connection
                except BaseException as error:
                    # A cancelled asyncpg call leaves the connection mid-protocol.
                    cancelled = isinstance(error, asyncio.CancelledError)
                    if is_driver_disconnect(error) or (cancelled and self.dialect != "sqlite"):
                        pooled.invalidate(error if isinstance(error, Exception) else None)
                    raise
                finally:
                    pooled.close()  # back to the pool (a no-op once invalidated)

    async def _raw_connection(self) -> PoolProxiedConnection:
        """A pooled connection, its connect errors typed as SQLAlchemy types them.

        ``raw_connection`` raises the driver adapter's own errors (a ``Connection`` would have
        wrapped them): they are wrapped the same way here, so a server that is down or
        starting up reads as one, as on every other path.
        """
        dbapi = self.engine.dialect.loaded_dbapi
        try:
            return await self.engine.raw_connection()
        except dbapi.Error as error:
            raise sa_exc.DBAPIError.instance(
                None, None, error, dbapi.Error, hide_parameters=True, dialect=self.engine.dialect
            ) from error

    @contextlib.asynccontextmanager
    async def sqlite_writer(self) -> AsyncIterator[SqliteRunner]:
        """This process's turn to write to a SQLite database, and what to write with.

        ``await runner.run(fn)`` runs ``fn(connection)`` (a DB-API connection) as one call:
        on a file, on the writers' own ``sqlite3`` connection and thread
        (:class:`~adk_runtime.sql._sqlite_writer.SqliteWriter`: one hop, a transaction ``fn``
        leaves open is rolled back, a broken connection is replaced, any event loop may use
        it); on ``:memory:``, on the one shared connection. ``fn`` begins and ends its own
        transaction (``BEGIN IMMEDIATE``). Driver errors are translated.
        """
        if self.dialect != "sqlite":
            raise TypeError("sqlite_writer() is for SQLite databases")
        if not self._serialize_writers:  # :memory:, one shared connection
            async with self.autocommit() as connection:
                yield _SharedConnection(connection)
            return
        assert self._writer is not None  # every SQLite file has one
        async with self.exclusive(), self._write_lock:
            with translate_errors(self.url):
                yield self._writer

    async def dispose(self) -> None:
        """Dispose the engine if this object created it (and return the writers' connection).

        Pooled connections opened on another (possibly closed) event loop are dropped, not
        closed: closing them would need their own loop. The SQLite writer's connection is
        closed on its own thread. The database may be used again afterwards.
        """
        self._follow_loop()
        if self._writer is not None:
            await self._writer.close()
        if self.owns_engine:
            await self.engine.dispose()


class _SharedConnection:
    """The shared connection of an in-memory SQLite database, as a :class:`SqliteRunner`.

    ``fn`` gets SQLAlchemy's DB-API adapter of the aiosqlite connection (through public API:
    ``run_sync``, ``Connection.connection.dbapi_connection``); each of its statements is a
    hop to aiosqlite's thread (an in-memory database is for tests and prototypes).
    """

    def __init__(self, connection: AsyncConnection) -> None:
        self._connection = connection

    async def run(self, fn: Callable[[DbapiConnection], _T]) -> _T:
        def call(sync: Connection) -> _T:
            dbapi = sync.connection.dbapi_connection
            assert dbapi is not None  # a checked-out connection has one
            return fn(dbapi)

        return await self._connection.run_sync(call)
