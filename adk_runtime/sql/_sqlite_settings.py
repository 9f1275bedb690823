"""What every SQLite connection of the runtime is opened with, in one place.

The engine's pooled connections (:func:`~adk_runtime.sql.engine.configure_engine`) and the
writers' own connection (:mod:`._sqlite_writer`) both go through :func:`apply_settings`:
``busy_timeout``, WAL, ``synchronous=NORMAL``, foreign keys, the
:func:`~adk_runtime.sql.types.json_merge` function, and no implicit ``BEGIN`` (the runtime
begins its write transactions itself, ``BEGIN IMMEDIATE``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from adk_runtime.sql.types import SQLITE_JSON_MERGE, sqlite_json_merge

__all__ = ["BUSY_TIMEOUT_MS", "apply_settings"]

BUSY_TIMEOUT_MS = 30_000
"""How long a SQLite writer waits for another process's write transaction (milliseconds)."""

_WAL_ATTEMPTS = 10


def apply_settings(connection: Any) -> None:
    """Tune a DB-API SQLite connection (``sqlite3``'s, or SQLAlchemy's adapter of aiosqlite).

    Runs on the connection's own thread, before any other use of it.
    """
    # Let us emit BEGIN ourselves (the sqlite3 module's implicit BEGIN is DEFERRED).
    connection.isolation_level = None
    cursor = connection.cursor()
    try:
        # The busy timeout first: switching to WAL needs the file's lock, which another
        # connection (or process) may hold for a moment; without it the switch fails at once.
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        _switch_to_wal(cursor)
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
    finally:
        cursor.close()
    connection.create_function(SQLITE_JSON_MERGE, 2, sqlite_json_merge, deterministic=True)


def _switch_to_wal(cursor: Any) -> None:
    """Put the file in WAL mode, waiting for a writer that holds a new file's lock.

    While a file is still in rollback mode, SQLite refuses the switch with "database is
    locked" at once, without calling the busy handler, when another connection is writing
    to it (seen with 6 threads opening one new file: about 1 open in 2,000 failed). Then a
    ``BEGIN IMMEDIATE`` / ``ROLLBACK`` waits for that writer the way SQLite waits for any lock
    (the busy handler, up to the busy timeout, on the connection's thread: the event loop is
    not blocked), and the switch is tried again. The mode is stored in the file, so once any
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
