"""Group commit for SQLite: appends that arrive together share one write transaction.

SQLite has one writer per file. When many conversations append at once, each append used to
take its own turn: a hop to the writer's thread, ``BEGIN IMMEDIATE``, the statements,
``COMMIT`` (a WAL write of every page it touched) and a hop back. Here the appends that are
waiting when the writer becomes free go to the writer's thread together (one
:meth:`SqliteWriter.run <adk_runtime.sql._sqlite_writer.SqliteWriter.run>` call) and commit in
**one** transaction, each inside its own ``SAVEPOINT``:

- every append keeps its own outcome: a stale writer, a missing session, an already-stored
  event id, or any error one append raises (a driver error on its row, a value the driver
  cannot bind) rolls back only its own savepoint (nothing of it is written) and gets its own
  error; the others commit. Only an error that ends the transaction itself (SQLite rolls the
  whole transaction back on a full disk or an I/O error) fails the batch;
- nobody is answered before the ``COMMIT`` returns, so an acknowledged append is durable, and
  if the ``COMMIT`` (or ``BEGIN``) fails every append of the batch fails with the same error
  and none of them is stored;
- appends to one session in one batch apply in arrival order, each seeing the one before
  (its compare-and-set reads the revision the previous one wrote).

A single waiting append runs exactly as before (no savepoint). The batch is built and run by
a task of its own, not by any caller, so a caller that is cancelled never strands the others.
Batches are capped (:data:`MAX_BATCH`) so one transaction never holds the file lock long.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import weakref
from collections.abc import Callable
from typing import Any, Protocol

from adk_runtime.sql._sqlite_writer import DbapiConnection
from adk_runtime.sql.engine import Database

__all__ = ["MAX_BATCH", "Cursor", "run_batch", "submit"]


class Cursor(Protocol):
    """A DB-API cursor of a SQLite connection (``sqlite3``'s, or SQLAlchemy's adapter)."""

    def execute(self, sql: str, parameters: Any = ..., /) -> Any:
        """Run one statement."""
        ...

    def fetchone(self) -> Any:
        """The next row of the last statement, or None."""
        ...


MAX_BATCH = 128
"""The most appends one transaction carries."""

Apply = Callable[[Cursor, dict[str, Any]], tuple[Any, ...]]
"""Runs one append's statements inside an open transaction; returns its outcome."""

_SAVEPOINT = "adk_append"


def run_batch(
    cursor: Cursor, apply: Apply, batch: list[dict[str, Any]]
) -> list[tuple[Any, ...] | BaseException]:
    """Run on the writer's thread: the whole batch in one ``BEGIN IMMEDIATE`` transaction.

    Returns one outcome per append: what ``apply`` returned, or the exception that append
    raised (its savepoint rolled back). Raises when the transaction itself fails (and then
    leaves none open).
    """
    cursor.execute("BEGIN IMMEDIATE")
    try:
        if len(batch) == 1:  # alone: no savepoint needed
            outcomes: list[tuple[Any, ...] | BaseException] = [apply(cursor, batch[0])]
        else:
            outcomes = [_in_savepoint(cursor, apply, params) for params in batch]
        cursor.execute("COMMIT")
    except BaseException:
        with contextlib.suppress(sqlite3.Error):  # SQLite may have rolled it back already
            cursor.execute("ROLLBACK")
        raise
    return outcomes


def _in_savepoint(
    cursor: Cursor, apply: Apply, params: dict[str, Any]
) -> tuple[Any, ...] | BaseException:
    """One append of a batch; its own error, of any type, rolls back its savepoint only.

    An error after which the transaction is gone (SQLite rolled it back: a full disk, an I/O
    error; its savepoint is gone with it) is re-raised: the batch then fails whole, with that
    error.
    """
    cursor.execute(f"SAVEPOINT {_SAVEPOINT}")
    try:
        outcome: tuple[Any, ...] | BaseException = apply(cursor, params)
    except Exception as error:
        if not _rolled_back_to_savepoint(cursor):
            raise
        outcome = error
    cursor.execute(f"RELEASE {_SAVEPOINT}")
    return outcome


def _rolled_back_to_savepoint(cursor: Cursor) -> bool:
    try:
        cursor.execute(f"ROLLBACK TO {_SAVEPOINT}")
    except sqlite3.Error:  # no such savepoint: the transaction is gone
        return False
    return True


def _batch_on(
    apply: Apply, batch: list[dict[str, Any]]
) -> Callable[[DbapiConnection], list[tuple[Any, ...] | BaseException]]:
    """The batch as one call on the writer's connection."""

    def call(connection: DbapiConnection) -> list[tuple[Any, ...] | BaseException]:
        return run_batch(connection.cursor(), apply, batch)

    return call


class _Queue:
    """The appends of one database (and one event loop) waiting for the writer."""

    def __init__(self, db: Database, apply: Apply) -> None:
        self._db = db
        self._apply = apply
        self.loop = asyncio.get_running_loop()
        self._waiting: list[tuple[dict[str, Any], asyncio.Future[tuple[Any, ...]]]] = []
        self._drainer: asyncio.Task[None] | None = None
        self._alone = False

    async def submit(self, params: dict[str, Any]) -> tuple[Any, ...]:
        if not self._alone and self._drainer is None:
            # Nobody else is writing: commit this one at once, in the caller's task.
            self._alone = True
            try:
                outcome = (await self._run([params]))[0]
            finally:
                self._alone = False
            if isinstance(outcome, BaseException):
                raise outcome
            return outcome
        future: asyncio.Future[tuple[Any, ...]] = self.loop.create_future()
        self._waiting.append((params, future))
        if self._drainer is None:
            self._drainer = self.loop.create_task(self._drain())
        # Shielded: a cancelled caller stops waiting; its append may still commit (as any
        # append cancelled while its transaction runs).
        return await asyncio.shield(future)

    async def _run(self, batch: list[dict[str, Any]]) -> list[tuple[Any, ...] | BaseException]:
        async with self._db.sqlite_writer() as writer:
            return await writer.run(_batch_on(self._apply, batch))

    async def _drain(self) -> None:
        try:
            while self._waiting:
                await self._commit_waiting()
        finally:
            self._drainer = None

    async def _commit_waiting(self) -> None:
        # The batch is taken once the writer is ours: whoever arrived meanwhile joins it.
        batch: list[tuple[dict[str, Any], asyncio.Future[tuple[Any, ...]]]] = []
        try:
            async with self._db.sqlite_writer() as writer:
                batch = self._waiting[:MAX_BATCH]
                del self._waiting[:MAX_BATCH]
                outcomes = await writer.run(_batch_on(self._apply, [item[0] for item in batch]))
        except Exception as error:  # the transaction failed: no append of it is stored
            for _, future in batch or self._take_all():
                if not future.done():
                    future.set_exception(error)
            return
        for (_, future), outcome in zip(batch, outcomes, strict=True):
            if future.done():  # its caller was cancelled; the append is stored all the same
                continue
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

    def _take_all(self) -> list[tuple[dict[str, Any], asyncio.Future[tuple[Any, ...]]]]:
        """Everyone waiting (the writer could not even be had: they all fail alike)."""
        waiting, self._waiting = self._waiting, []
        return waiting


_queues: weakref.WeakKeyDictionary[Database, _Queue] = weakref.WeakKeyDictionary()


async def submit(db: Database, apply: Apply, params: dict[str, Any]) -> tuple[Any, ...]:
    """Commit one append, grouped with the others waiting for ``db``'s writer.

    Returns:
        What ``apply`` returned for it.

    Raises:
        sqlite3.Error and other driver errors (translated by the caller): this append's own
        error, or the batch transaction's.
    """
    queue = _queues.get(db)
    if queue is None or queue.loop is not asyncio.get_running_loop():
        queue = _queues[db] = _Queue(db, apply)
    return await queue.submit(params)
