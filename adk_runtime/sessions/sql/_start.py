"""A turn's start on SQL: claim a released session, read it, commit the turn's message.

What ``BaseSessionService._claim_and_read`` asks (``TurnStart`` in
:mod:`adk_runtime.sessions.claims`), atomically:

- **PostgreSQL**: one statement, one round trip
  (:data:`._driver_statements.POSTGRESQL_STARTS`), on the driver connection.
- **SQLite**: one ``BEGIN IMMEDIATE`` transaction (this process's turn to write): the read,
  :data:`._statements.CLAIM`, then the message through the append's own statements
  (:func:`._append.sqlite_apply`), so a turn's start is one transaction, not three.

A session that is held, or that its last holder left unreleased, is not claimed here and
nothing is written: the turn then takes the usual steps (a wait, or a take-over that first
finishes what the dead holder left).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Connection

from adk_runtime.errors import SessionNotFoundError
from adk_runtime.sessions._prepare import AppendResult, PreparedAppend, ReadPlan
from adk_runtime.sessions.sql import _append
from adk_runtime.sessions.sql import _driver_statements as driver_statements
from adk_runtime.sessions.sql import _statements as statements
from adk_runtime.sql.engine import Database

__all__ = ["Started", "Window", "start"]

Window = driver_statements.Window

_Key = tuple[str, str, str]
Alive = Callable[[datetime, object], bool]
"""The service's TTL rule: whether a row last written then (and held or not) is readable."""


@dataclasses.dataclass(frozen=True)
class Started:
    """A turn's start that claimed the session.

    Attributes:
        row: The session row as read, before the message (the columns of
            :data:`._statements.GET`, by name).
        payloads: The events read (stored JSON, oldest first).
        open_invocation: The session's open invocation after the claim.
        message: The message's commit (``already_stored``: stored before), or None.
    """

    row: Mapping[Any, Any]
    payloads: list[str]
    open_invocation: str | None
    message: AppendResult | None


def window_of(read: ReadPlan) -> tuple[Window, dict[str, Any]]:
    """The read's form and its parameters."""
    config = read.config
    if read.since is not None and read.identity is not None:
        return "since", {"since": read.since, "ctime": datetime.fromisoformat(read.identity)}
    if config is None:
        return (False, False), {}
    if config.num_recent_events == 0:
        return None, {}
    window = (config.num_recent_events is not None, config.after_timestamp is not None)
    return window, {"k": config.num_recent_events, "after": config.after_timestamp}


async def start(
    db: Database,
    key: _Key,
    claim: dict[str, Any],
    read: ReadPlan,
    message: PreparedAppend | None,
    now: datetime,
    alive: Alive,
) -> Started | None:
    """Claim ``key`` if released, read it, commit ``message``; None: not claimed, no write.

    ``claim``: the claim's parameters (``lease``, ``mark``, ``new_token``, ``fresh``).

    Raises:
        SessionNotFoundError: The session does not exist (or has expired).
    """
    params = {"app": key[0], "user": key[1], "sid": key[2], **claim}
    if db.dialect == "postgresql":
        return await _start_postgresql(db, key, params, read, message, now, alive)
    return await _start_sqlite(db, key, params, read, message, now, alive)


async def _start_postgresql(
    db: Database,
    key: _Key,
    params: dict[str, Any],
    read: ReadPlan,
    message: PreparedAppend | None,
    now: datetime,
    alive: Alive,
) -> Started | None:
    fresh = params["fresh"]
    every: dict[str, Any] = dict.fromkeys(("eid", "inv", "ts", "payload"))
    every.update(sdelta=None, adelta=None, udelta=None)
    if message is not None:
        every.update(_append.append_params(key, message, now, fresh, _append.as_is))
    window, window_params = window_of(read)
    every.update(params, **window_params, now=now)
    compiled = driver_statements.POSTGRESQL_STARTS[window]
    async with db.driver_connection() as connection:
        try:
            row = await connection.fetchrow(compiled.sql, *compiled.args(every))
        except Exception as error:
            if getattr(error, "sqlstate", None) != _append.UNIQUE_VIOLATION:
                raise
            return None  # the message is stored already: nothing was written
    if row is None or not alive(row["update_time"], row["held"]):
        raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
    if row["claimed_revision"] is None:
        return None  # held, or left unreleased: nothing was written
    payloads: list[str] = (row["payloads"] or []) if window is not None else []
    committed = None
    if message is not None:
        stored_at = row["claimed_time"].timestamp()
        committed = AppendResult(message.event, row["claimed_revision"], stored_at)
    return Started(row, payloads, row["claimed_open"], committed)


async def _start_sqlite(
    db: Database,
    key: _Key,
    params: dict[str, Any],
    read: ReadPlan,
    message: PreparedAppend | None,
    now: datetime,
    alive: Alive,
) -> Started | None:
    window, window_params = window_of(read)
    params.update(window_params)
    async with db.write() as connection:  # BEGIN IMMEDIATE: nobody writes in between
        statement = statements.GET_SINCE if isinstance(window, str) else statements.GET[window]
        found = (await connection.execute(statement, params)).first()
        if found is None or not alive(found.update_time, found.held):
            raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
        row: Mapping[Any, Any] = found._mapping
        if window == "since" and row["create_time"] != params["ctime"]:  # another one now
            found = (await connection.execute(statements.GET[(False, False)], params)).first()
            assert found is not None  # the transaction holds the write lock
            row = found._mapping
        claimed = (await connection.execute(statements.CLAIM, params)).first()
        if claimed is None:
            return None  # held, or left unreleased: nothing was written
        committed = None
        if message is not None:
            fresh = params["fresh"]
            append = _append.append_params(key, message, now, fresh, _append.sqlite_time)
            append.update(expected=row["revision"], fence=params["new_token"])
            outcome = await connection.run_sync(_apply, append)
            committed = _append.outcome(key, outcome, message, fresh)
    payloads: list[str] = (row["payloads"] or []) if window is not None else []
    return Started(row, payloads, claimed[1], committed)


def _apply(connection: Connection, params: dict[str, Any]) -> tuple[Any, ...]:
    """The append's own statements (:func:`._append.sqlite_apply`) in this transaction."""
    return _append.sqlite_apply(_Cursor(connection), params)


class _Cursor:
    """The :class:`._group_commit.Cursor` of a SQLAlchemy connection (its driver's SQL)."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._result: Any = None

    def execute(self, sql: str, parameters: Any = None, /) -> Any:
        self._result = self._connection.exec_driver_sql(sql, parameters)
        return self._result

    def fetchone(self) -> Any:
        return self._result.fetchone()
