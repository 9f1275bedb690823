"""The append commit, the hottest path: one transaction, as few round trips as possible.

Both forms do, atomically: compare-and-set the revision (``UPDATE … WHERE revision =
:expected`` that also checks the event id is not stored yet), insert the event with the new
revision as its sequence, merge the session/app/user deltas in SQL (never read-modify-write
in Python), and return the new revision and update time. When the compare-and-set matches
nothing, one more query tells why: the event is already stored (idempotent retry), the
session is gone, or the caller is stale.

- PostgreSQL: one statement (data-modifying CTEs) in autocommit mode: one round trip.
- SQLite: a ``BEGIN IMMEDIATE`` transaction (writers serialize across processes) with a
  few statements; a round trip to SQLite is a call into the same process.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from sqlalchemy import BindParameter, Integer, TextualSelect, bindparam, text
from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection

from adk_runtime.errors import SessionNotFoundError, StaleSessionError
from adk_runtime.events import event_from_json
from adk_runtime.sessions.base import AppendResult, PreparedAppend
from adk_runtime.sessions.sql import _statements as sql
from adk_runtime.sql.engine import Database
from adk_runtime.sql.types import DateTimeUTC, JSONDocument

__all__ = ["append"]


def _params(key: tuple[str, str, str], prepared: PreparedAppend, now: datetime) -> dict[str, Any]:
    event = prepared.event
    return {
        "app": key[0],
        "user": key[1],
        "sid": key[2],
        "expected": prepared.expected_revision,
        "now": now,
        "eid": event.id,
        "inv": event.invocation_id,
        "ts": event.timestamp,
        "payload": prepared.event_json,
        "sdelta": prepared.session_delta,
    }


async def _explain(
    connection: AsyncConnection, key: tuple[str, str, str], prepared: PreparedAppend
) -> AppendResult:
    params = {"app": key[0], "user": key[1], "sid": key[2], "eid": prepared.event.id}
    row = (await connection.execute(sql.CLASSIFY, params)).first()
    if row is None:
        raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
    if row.sequence is None:
        raise StaleSessionError()
    stored = event_from_json(row.payload)
    return AppendResult(stored, row.sequence, row.update_time.timestamp(), already_stored=True)


def _result(prepared: PreparedAppend, row: Row[Any]) -> AppendResult:
    return AppendResult(prepared.event, row.revision, row.update_time.timestamp())


# --- PostgreSQL: one statement ------------------------------------------------------------

_PG_SESSION = """
WITH s AS (
  UPDATE adk_sessions
  SET revision = revision + 1, update_time = GREATEST(update_time, :now){state}
  WHERE app_name = :app AND user_id = :user AND id = :sid AND revision = :expected
    AND NOT EXISTS (SELECT 1 FROM adk_events
                    WHERE app_name = :app AND user_id = :user AND session_id = :sid
                      AND id = :eid)
  RETURNING revision, update_time
), e AS (
  INSERT INTO adk_events
    (app_name, user_id, session_id, sequence, id, invocation_id, timestamp, payload)
  SELECT :app, :user, :sid, s.revision, :eid, :inv, CAST(:ts AS DOUBLE PRECISION), :payload
  FROM s
){scopes}
SELECT revision, update_time FROM s
"""

_PG_SCOPE = """, {name} AS (
  INSERT INTO {table} ({keys}, state, update_time)
  SELECT {values}, CAST(:{param} AS JSONB), CAST(:now AS TIMESTAMPTZ) FROM s
  ON CONFLICT ({keys}) DO UPDATE
  SET state = {table}.state || EXCLUDED.state, update_time = EXCLUDED.update_time
)"""


@functools.lru_cache(maxsize=8)
def _pg_statement(with_state: bool, with_app: bool, with_user: bool) -> TextualSelect:
    scopes = ""
    if with_app:
        scopes += _PG_SCOPE.format(
            name="a", table="adk_app_states", keys="app_name", values=":app", param="adelta"
        )
    if with_user:
        scopes += _PG_SCOPE.format(
            name="u",
            table="adk_user_states",
            keys="app_name, user_id",
            values=":app, :user",
            param="udelta",
        )
    state = ", state = state || CAST(:sdelta AS JSONB)" if with_state else ""
    statement = text(_PG_SESSION.format(state=state, scopes=scopes))
    params: list[BindParameter[Any]] = [bindparam("now", type_=DateTimeUTC)]
    names = [("sdelta", with_state), ("adelta", with_app), ("udelta", with_user)]
    params += [bindparam(name, type_=JSONDocument) for name, wanted in names if wanted]
    return statement.bindparams(*params).columns(revision=Integer, update_time=DateTimeUTC)


async def _append_postgresql(
    db: Database, key: tuple[str, str, str], prepared: PreparedAppend, now: datetime
) -> AppendResult:
    params = _params(key, prepared, now)
    params["adelta"] = prepared.app_delta
    params["udelta"] = prepared.user_delta
    statement = _pg_statement(
        bool(prepared.session_delta), bool(prepared.app_delta), bool(prepared.user_delta)
    )
    async with db.autocommit() as connection:
        row = (await connection.execute(statement, params)).first()
        if row is None:
            return await _explain(connection, key, prepared)
        return _result(prepared, row)


# --- SQLite: one BEGIN IMMEDIATE transaction ----------------------------------------------

_CAS = {with_state: sql.cas_update(with_state=with_state) for with_state in (False, True)}
_SQLITE_SCOPES = {user: sql.upsert_scope("sqlite", user=user) for user in (False, True)}


async def _append_sqlite(
    db: Database, key: tuple[str, str, str], prepared: PreparedAppend, now: datetime
) -> AppendResult:
    params = _params(key, prepared, now)
    async with db.write() as connection:
        cas = _CAS[bool(prepared.session_delta)]
        row = (await connection.execute(cas, params)).first()
        if row is None:
            return await _explain(connection, key, prepared)
        params["seq"] = row.revision
        await connection.execute(sql.INSERT_EVENT, params)
        for user, delta in ((False, prepared.app_delta), (True, prepared.user_delta)):
            if delta:
                scope = {"app": key[0], "user": key[1], "now": now, "delta": delta}
                await connection.execute(_SQLITE_SCOPES[user], scope)
        return _result(prepared, row)


_APPENDERS = {"postgresql": _append_postgresql, "sqlite": _append_sqlite}


async def append(
    db: Database, key: tuple[str, str, str], prepared: PreparedAppend, now: datetime
) -> AppendResult:
    """Commit ``prepared`` to the session ``key`` (see the module docstring)."""
    return await _APPENDERS[db.dialect](db, key, prepared, now)
