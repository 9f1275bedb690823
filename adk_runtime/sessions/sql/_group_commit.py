"""Group commit for SQLite: appends that arrive together share one write transaction.

SQLite has one writer per file. When many conversations append at once, each append used to
take its own turn: a hop to aiosqlite's worker thread, ``BEGIN IMMEDIATE``, the statements,
``COMMIT`` (a WAL write of every page it touched) and a hop back. Here the appends that are
waiting when the writer becomes free go to the worker thread together and commit in **one**
transaction, each inside its own ``SAVEPOINT``:

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
import sqlite3
import weakref
from collections.abc import Callable
from typing import Any

from adk_runtime.sql.engine import Database

__all__ = ["MAX_BATCH", "submit"]

MAX_BATCH = 128
"""The most appends one transaction carries."""

Apply = Callable[[sqlite3.Connection, dict[str, Any]], tuple[Any, ...]]
"""Runs one append's statements inside an open transaction; returns its outcome."""

_SAVEPOINT = "adk_append"


def run_batch(
    connection: sqlite3.Connection, apply: Apply, batch: list[dict[str, Any]]
) -> list[tuple[Any, ...] | BaseException]:
    """Run on the aiosqlite thread: the whole batch in one ``BEGIN IMMEDIATE`` transaction.

    Returns one outcome per append: what ``apply`` returned, or the exception that append
    raised (its savepoint rolled back). Raises when the transaction itself fails.
    """
    connection.execute("BEGIN IMMEDIATE")
    try:
        if len(batch) == 1:  # alone: no savepoint needed
            outcomes: list[tuple[Any, ...] | BaseException] = [apply(connection, batch[0])]
        else:
            outcomes = [_in_savepoint(connection, apply, params) for params in batch]
        connection.execute("COMMIT")
    except BaseException:
        if connection.in_transaction:
            connection.execute("ROLLBACK")
        raise
    return outcomes


def _in_savepoint(
    connection: sqlite3.Connection, apply: Apply, params: dict[str, Any]
) -> tuple[Any, ...] | BaseException:
    """One append of a batch; its own error, of any type, rolls back its savepoint only.

    An error after which the transaction is gone (SQLite rolled it back: a full disk, an I/O
    error) is re-raised: the batch then fails whole, with that error.
    """
    connection.execute(f"SAVEPOINT {_SAVEPOINT}")
    try:
        outcome: tuple[Any, ...] | BaseException = apply(connection, params)
    except Exception as error:
        if not connection.in_transaction:
            raise
        connection.execute(f"ROLLBACK TO {_SAVEPOINT}")
        outcome = error
    connection.execute(f"RELEASE {_SAVEPOINT}")
    return outcome


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
        async with self._db.driver_connection(write=True) as connection:
            return await self._execute(connection, batch)

    async def _execute(
        self, connection: Any, batch: list[dict[str, Any]]
    ) -> list[tuple[Any, ...] | BaseException]:
        # aiosqlite runs calls on its own thread; `_execute` hands it one function and `_conn`
        # is the sqlite3 connection, touched only on that thread (see the module docstring of
        # _append for why these two internals are used).
        return await connection._execute(  # type: ignore[no-any-return]
            lambda: run_batch(connection._conn, self._apply, batch)
        )

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
            async with self._db.driver_connection(write=True) as connection:
                batch = self._waiting[:MAX_BATCH]
                del self._waiting[:MAX_BATCH]
                outcomes = await self._execute(connection, [item[0] for item in batch])
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
