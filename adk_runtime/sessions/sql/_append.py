"""The append commit, the hottest path: one transaction, as few round trips as possible.

Both forms do, atomically: compare-and-set the revision (``UPDATE … WHERE revision =
:expected`` that also checks the event id is not stored yet and the turn claim: the caller's
fencing token is the latest, or without one, no other claim's lease runs), insert the event
with the new revision as its sequence, merge the session/app/user deltas in SQL (never read-
modify-write in Python), and return the new revision and update time. When the compare-and-
set matches nothing, one more query tells why: the event is already stored (idempotent
retry), the session is gone, or the caller is stale.

The statements go straight to the driver connection of the engine's pool (SQLAlchemy's
per-statement overhead is larger than the statements themselves here):

- PostgreSQL: one statement (data-modifying CTEs) in autocommit mode, one round trip.
- SQLite: the whole ``BEGIN IMMEDIATE`` … ``COMMIT`` transaction runs as one call on the
  aiosqlite worker thread (writers serialize across processes on the file lock), shared by
  the appends waiting at that moment (group commit, :mod:`._group_commit`). That uses
  two aiosqlite internals (``_execute``, ``_conn``) on purpose: through the public API the same
  transaction is five awaits, each a hop to the worker thread and back. Measured on
  2026-11-22 (2 vCPUs, WAL, a two-statement transaction): 0.12-0.13 ms per append as one call
  against 0.41-0.44 ms through the public API, i.e. about 0.3 ms of a 0.7 ms append.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from adk_runtime.errors import (
    RECREATED_SESSION_MESSAGE,
    ClaimLostError,
    SessionBusyError,
    SessionNotFoundError,
    StaleSessionError,
)
from adk_runtime.events import event_from_json
from adk_runtime.sessions.base import AppendResult, PreparedAppend
from adk_runtime.sessions.sql import _group_commit as group_commit
from adk_runtime.sql.engine import Database
from adk_runtime.sql.errors import translate_errors
from adk_runtime.sql.types import EPOCH_NOW, SQLITE_JSON_MERGE

__all__ = ["append"]

_Key = tuple[str, str, str]
# (update_time, sequence, payload, create_time, claim_token, claim held for);
# sequence and payload None when not stored
_Explained = tuple[Any, Any, Any, Any, Any, Any]


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _explain(key: _Key, row: _Explained | None, prepared: PreparedAppend) -> AppendResult:
    if row is None:
        raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
    update_time, sequence, payload, create_time, claim_token, held_for = row
    incarnation = prepared.incarnation
    if incarnation is not None and _utc(create_time).isoformat() != incarnation:
        raise StaleSessionError(RECREATED_SESSION_MESSAGE)
    if sequence is None:
        if prepared.fence is not None and claim_token != prepared.fence:
            raise ClaimLostError(key[2])
        if prepared.fence is None and held_for is not None and held_for > 0:
            raise SessionBusyError(key[2], float(held_for))
        raise StaleSessionError()
    return AppendResult(
        event_from_json(payload), int(sequence), _utc(update_time).timestamp(), already_stored=True
    )


def _moment(incarnation: str | None) -> datetime | None:
    """A SQL session's incarnation is its create time (ISO-8601, UTC)."""
    return None if incarnation is None else datetime.fromisoformat(incarnation)


def _moment_of(prepared: PreparedAppend) -> datetime:
    moment = _moment(prepared.incarnation)
    assert moment is not None
    return moment


def _utc(value: datetime | str) -> datetime:
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    if moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment


# --- PostgreSQL: one statement ------------------------------------------------------------

# Every delta parameter may be NULL (no change in that scope): one statement for all cases.
# The event id's uniqueness is left to its unique index: a re-appended id makes the insert,
# hence the whole statement, fail (unique_violation) and change nothing. A NOT EXISTS probe
# here would let the planner pick the invocation-id index on a table without statistics and
# scan the whole conversation on every append.
_PG_APPEND = """
WITH s AS (
  UPDATE adk_sessions
  SET revision = revision + 1,
      update_time = GREATEST(update_time, $4),
      state = CASE WHEN $10::jsonb IS NULL THEN state ELSE state || $10::jsonb END
  WHERE app_name = $1 AND user_id = $2 AND id = $3 AND revision = $5
    AND ($13::timestamptz IS NULL OR create_time = $13::timestamptz)
    AND CASE WHEN $14::integer IS NULL THEN claim_until IS NULL OR claim_until <= {now}
             ELSE claim_token = $14::integer END
  RETURNING revision, update_time
), e AS (
  INSERT INTO adk_events
    (app_name, user_id, session_id, sequence, id, invocation_id, timestamp, payload)
  SELECT $1, $2, $3, s.revision, $6, $7, $8, $9 FROM s
), a AS (
  INSERT INTO adk_app_states AS t (app_name, state, update_time)
  SELECT $1, $11::jsonb, $4 FROM s WHERE $11::jsonb IS NOT NULL
  ON CONFLICT (app_name) DO UPDATE
  SET state = t.state || EXCLUDED.state, update_time = EXCLUDED.update_time
), u AS (
  INSERT INTO adk_user_states AS t (app_name, user_id, state, update_time)
  SELECT $1, $2, $12::jsonb, $4 FROM s WHERE $12::jsonb IS NOT NULL
  ON CONFLICT (app_name, user_id) DO UPDATE
  SET state = t.state || EXCLUDED.state, update_time = EXCLUDED.update_time
)
SELECT revision, update_time FROM s
""".format(now=EPOCH_NOW["postgresql"])

_UNIQUE_VIOLATION = "23505"

_EXPLAIN = """
SELECT s.update_time, e.sequence, e.payload, s.create_time, s.claim_token,
  s.claim_until - {now}
FROM adk_sessions s LEFT JOIN adk_events e
  ON e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.id AND e.id = $4
WHERE s.app_name = $1 AND s.user_id = $2 AND s.id = $3
"""
_PG_EXPLAIN = _EXPLAIN.format(now=EPOCH_NOW["postgresql"])


async def _append_postgresql(
    db: Database, key: _Key, prepared: PreparedAppend, now: datetime
) -> AppendResult:
    event = prepared.event
    deltas = (prepared.session_delta, prepared.app_delta, prepared.user_delta)
    args = [
        *key,
        now,
        prepared.expected_revision,
        event.id,
        event.invocation_id,
        event.timestamp,
        prepared.event_json,
        *(_json(delta) if delta else None for delta in deltas),
        _moment(prepared.incarnation),
        prepared.fence,
    ]
    async with db.driver_connection() as connection:
        try:
            row = await connection.fetchrow(_PG_APPEND, *args)
        except Exception as error:
            if getattr(error, "sqlstate", None) != _UNIQUE_VIOLATION:
                raise
            row = None  # the event id is stored already: nothing was written
        if row is None:
            found = await connection.fetchrow(_PG_EXPLAIN, *key, event.id)
            return _explain(key, None if found is None else tuple(found), prepared)
    return AppendResult(event, row["revision"], row["update_time"].timestamp())


# --- SQLite: one BEGIN IMMEDIATE transaction on the worker thread -------------------------

_SQLITE_CAS = """
UPDATE adk_sessions
SET revision = revision + 1, update_time = max(update_time, :now){state}
WHERE app_name = :app AND user_id = :user AND id = :sid AND revision = :expected
  AND (:ctime IS NULL OR create_time = :ctime)
  AND CASE WHEN :fence IS NULL THEN claim_until IS NULL OR claim_until <= {now}
           ELSE claim_token = :fence END
  AND NOT EXISTS (SELECT 1 FROM adk_events
                  WHERE app_name = :app AND user_id = :user AND session_id = :sid AND id = :eid)
RETURNING revision, update_time
"""
_SQLITE_CAS_STATE = _SQLITE_CAS.format(
    state=f", state = {SQLITE_JSON_MERGE}(state, :sdelta)", now=EPOCH_NOW["sqlite"]
)
_SQLITE_CAS_PLAIN = _SQLITE_CAS.format(state="", now=EPOCH_NOW["sqlite"])
_SQLITE_EVENT = """
INSERT INTO adk_events
  (app_name, user_id, session_id, sequence, id, invocation_id, timestamp, payload)
VALUES (:app, :user, :sid, :seq, :eid, :inv, :ts, :payload)
"""
_SQLITE_SCOPE = """
INSERT INTO {table} ({keys}, state, update_time) VALUES ({values}, :{param}, :now)
ON CONFLICT ({keys}) DO UPDATE
SET state = {merge}({table}.state, excluded.state), update_time = excluded.update_time
"""
_SQLITE_APP = _SQLITE_SCOPE.format(
    table="adk_app_states", keys="app_name", values=":app", param="adelta", merge=SQLITE_JSON_MERGE
)
_SQLITE_USER = _SQLITE_SCOPE.format(
    table="adk_user_states",
    keys="app_name, user_id",
    values=":app, :user",
    param="udelta",
    merge=SQLITE_JSON_MERGE,
)
_SQLITE_EXPLAIN = _EXPLAIN.format(now=EPOCH_NOW["sqlite"])
_SQLITE_EXPLAIN = _SQLITE_EXPLAIN.replace("$1", ":app").replace("$2", ":user")
_SQLITE_EXPLAIN = _SQLITE_EXPLAIN.replace("$3", ":sid").replace("$4", ":eid")


def _sqlite_time(moment: datetime) -> str:
    # The storage format SQLAlchemy's SQLite DateTime reads and writes (naive UTC).
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")


def _sqlite_apply(connection: sqlite3.Connection, params: dict[str, Any]) -> tuple[Any, ...]:
    """Run on the aiosqlite thread, inside the batch's transaction: one append's statements."""
    cas = _SQLITE_CAS_STATE if params["sdelta"] is not None else _SQLITE_CAS_PLAIN
    row = connection.execute(cas, params).fetchone()
    if row is None:  # the compare-and-set wrote nothing: say why
        return ("explain", connection.execute(_SQLITE_EXPLAIN, params).fetchone())
    params["seq"] = row[0]
    connection.execute(_SQLITE_EVENT, params)
    if params["adelta"] is not None:
        connection.execute(_SQLITE_APP, params)
    if params["udelta"] is not None:
        connection.execute(_SQLITE_USER, params)
    return ("stored", row)


async def _append_sqlite(
    db: Database, key: _Key, prepared: PreparedAppend, now: datetime
) -> AppendResult:
    event = prepared.event
    params = {
        "app": key[0],
        "user": key[1],
        "sid": key[2],
        "now": _sqlite_time(now),
        "expected": prepared.expected_revision,
        "eid": event.id,
        "inv": event.invocation_id,
        "ts": event.timestamp,
        "payload": prepared.event_json,
        "sdelta": _json(prepared.session_delta) if prepared.session_delta else None,
        "adelta": _json(prepared.app_delta) if prepared.app_delta else None,
        "udelta": _json(prepared.user_delta) if prepared.user_delta else None,
        "ctime": None if prepared.incarnation is None else _sqlite_time(_moment_of(prepared)),
        "fence": prepared.fence,
    }
    with translate_errors(db.url):
        outcome, row = await group_commit.submit(db, _sqlite_apply, params)
    if outcome == "explain":
        return _explain(key, None if row is None else tuple(row), prepared)
    return AppendResult(event, int(row[0]), _utc(row[1]).timestamp())


_APPENDERS = {"postgresql": _append_postgresql, "sqlite": _append_sqlite}


async def append(db: Database, key: _Key, prepared: PreparedAppend, now: datetime) -> AppendResult:
    """Commit ``prepared`` to the session ``key`` (see the module docstring)."""
    return await _APPENDERS[db.dialect](db, key, prepared, now)
