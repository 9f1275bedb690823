"""The writers' own SQLite connection: one ``sqlite3`` connection on one thread of its own.

SQLite has one writer per file, so this process writes through one connection, in turn
(:meth:`Database.sqlite_writer <adk_runtime.sql.engine.Database.sqlite_writer>`). It is
ours, not a pooled aiosqlite connection, so that a whole write transaction (``BEGIN
IMMEDIATE`` … ``COMMIT``, e.g. a group commit of appends) runs as **one** call on its thread
through public APIs only: :meth:`SqliteWriter.run` queues ``fn`` for the writer's thread and
awaits its answer (one hop there and back; the event loop is never blocked), the design
aiosqlite has: one thread per connection, a queue of calls, each answered with
``call_soon_threadsafe`` on its caller's loop. Through aiosqlite's public API the same
transaction is about five awaits, each a hop to its thread and back (figures: the module
docstring of :mod:`adk_runtime.sessions.sql._append`).

- The connection is opened on the thread at first use, with the engine's URL and the
  settings every SQLite connection of the runtime gets (:mod:`._sqlite_settings`), and is
  touched on that thread only (``check_same_thread`` stays on).
- Whatever ``fn`` does, it never leaves a transaction open: one still open when ``fn``
  returns or raises is rolled back on the thread, in the same call. A caller cancelled while
  ``fn`` runs stops waiting; ``fn`` still runs to its end (commit or rollback) before the
  next call starts.
- A connection that breaks (closed, an I/O error, the file damaged or replaced) is closed
  and dropped; the next call opens a new one.
- The thread belongs to no event loop: the writer serves any loop (a ``Database`` used from
  ``asyncio.run`` in another thread, or from a second loop later) without reopening.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine

from adk_runtime.sql._sqlite_settings import apply_settings

__all__ = ["DbapiConnection", "SqliteRunner", "SqliteWriter", "connect_args"]

_T = TypeVar("_T")

# Primary result codes after which a connection is not reused: I/O error, damaged file,
# protocol error, not a database.
_BROKEN_CODES = frozenset({10, 11, 15, 26})


class DbapiConnection(Protocol):
    """The part of a DB-API SQLite connection a write function uses."""

    def cursor(self) -> Any:
        """A new cursor (``execute``, ``fetchone``)."""
        ...


class SqliteRunner(Protocol):
    """Runs a function on the connection this process writes to SQLite with."""

    async def run(self, fn: Callable[[DbapiConnection], _T]) -> _T:
        """Run ``fn(connection)`` as one call and return what it returns."""
        ...


class SqliteWriter:
    """One ``sqlite3`` connection, used on one thread of its own (see the module docstring).

    Args:
        database: The file (or ``file:`` URI) ``sqlite3.connect`` opens.
        options: Keyword arguments for ``sqlite3.connect`` (``uri``, ``timeout``, ...).
    """

    def __init__(self, database: str, options: Mapping[str, Any]) -> None:
        self._state = _Connection(
            database, {**options, "check_same_thread": True, "isolation_level": None}
        )
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._starting = threading.Lock()  # two loops in two threads may call first at once

    async def run(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        """Run ``fn(connection)`` on the writer's thread, in one hop; return its result.

        ``fn`` must not block on anything but SQLite. Its exceptions are raised here. A
        caller cancelled meanwhile stops waiting; ``fn`` runs all the same.
        """
        if self._thread is None:
            self._start()
        future: asyncio.Future[_T] = asyncio.get_running_loop().create_future()
        self._calls.put((future, fn))
        return await future

    async def close(self) -> None:
        """Close the connection (after the calls already handed over) and end the thread.

        A later :meth:`run` opens a new connection on a new thread.
        """
        if self._thread is None:
            return
        await self.run(lambda _connection: self._state.discard())
        self._calls.put(None)
        self._thread = None
        self._calls = queue.SimpleQueue()  # a later call starts a thread of its own

    def _start(self) -> None:
        with self._starting:
            if self._thread is None:
                self._start_thread()

    def _start_thread(self) -> None:
        # A daemon thread: a writer nobody closed never holds up the interpreter's exit (the
        # WAL keeps every committed transaction; one in progress is rolled back on the next
        # open). A writer that is garbage collected ends its thread.
        self._thread = threading.Thread(
            target=_serve, args=(self._calls, self._state), name="adk-sqlite-writer", daemon=True
        )
        self._thread.start()
        weakref.finalize(self, self._calls.put, None)


_Call = tuple["asyncio.Future[Any]", Callable[[sqlite3.Connection], Any]]


def _serve(calls: queue.SimpleQueue[_Call | None], state: _Connection) -> None:
    """The writer's thread: run each call in turn, answer its caller on the caller's loop."""
    while (call := calls.get()) is not None:
        future, fn = call
        try:
            result = state.call(fn)
        except BaseException as error:  # handed to the caller
            _answer(future, _set_exception, error)
        else:
            _answer(future, _set_result, result)


def _answer(future: asyncio.Future[Any], how: Callable[..., None], value: Any) -> None:
    with contextlib.suppress(RuntimeError):  # the caller's loop is closed: nobody waits
        future.get_loop().call_soon_threadsafe(how, future, value)


def _set_result(future: asyncio.Future[Any], result: Any) -> None:
    if not future.done():  # not cancelled meanwhile
        future.set_result(result)


def _set_exception(future: asyncio.Future[Any], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


class _Connection:
    """The connection and how to open it; used on the writer's thread only."""

    def __init__(self, database: str, options: dict[str, Any]) -> None:
        self._database = database
        self._options = options
        self._connection: sqlite3.Connection | None = None

    def call(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        connection = self._connection
        if connection is None:
            connection = self._connection = self._open()
        try:
            return fn(connection)
        except BaseException as error:
            if _is_broken(error):
                self.discard()
            raise
        finally:
            self._settle()

    def _open(self) -> sqlite3.Connection:
        connection: sqlite3.Connection = sqlite3.connect(self._database, **self._options)
        try:
            apply_settings(connection)
        except BaseException:
            connection.close()
            raise
        return connection

    def _settle(self) -> None:
        """Roll back a transaction the call left open; drop a connection that is unusable."""
        connection = self._connection
        if connection is None:
            return
        try:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
        except sqlite3.Error:  # closed, or even a rollback fails: never reuse it
            self.discard()

    def discard(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(sqlite3.Error):
                connection.close()


def connect_args(engine: AsyncEngine) -> tuple[str, dict[str, Any]]:
    """The file and ``sqlite3.connect`` options of ``engine``'s connections (from its URL).

    Call it once, off the hot path: it resolves the file's path (a file system call).
    """
    args, options = engine.dialect.create_connect_args(engine.url)
    return str(args[0]), dict(options)


def _is_broken(error: BaseException) -> bool:
    if isinstance(error, OSError):
        return True
    code = getattr(error, "sqlite_errorcode", None)
    return (
        isinstance(error, sqlite3.Error)
        and isinstance(code, int)
        and code & 0xFF in (_BROKEN_CODES)
    )
