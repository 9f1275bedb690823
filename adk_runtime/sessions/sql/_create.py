"""Creating a session: the row and the app/user state merges, atomically.

- PostgreSQL: one statement (data-modifying CTEs, built from the table definitions in
  :mod:`._driver_statements`) in autocommit mode, one round trip. It returns nothing when the
  key is taken (``ON CONFLICT DO NOTHING``), and then writes nothing: the state merges read
  their input from the inserted row.
- SQLite: one ``BEGIN IMMEDIATE`` transaction of SQLAlchemy statements (round trips cost
  nothing in process).
- A session created with events (an import): that same transaction on either dialect, which
  also inserts the event rows (one ``executemany``); the row's revision is their count.

Both return the new row's update time and the app and user state after the merge.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Insert, insert, null

from adk_runtime import codec
from adk_runtime.sessions.base import PreparedCreate
from adk_runtime.sessions.sql import _driver_statements as driver_statements
from adk_runtime.sessions.sql import _statements as statements
from adk_runtime.sessions.sql.tables import events
from adk_runtime.sql.engine import Database

__all__ = ["Created", "create"]

# (update_time, app state, user state), or None when the session exists already.
Created = tuple[datetime, dict[str, Any], dict[str, Any]] | None

_PG_CREATE = driver_statements.POSTGRESQL["create"]
_INSERT_EVENTS: Insert = insert(events)  # executed with one parameter set per event


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _creation_json(prepared: PreparedCreate) -> str | None:
    return None if prepared.creation_state is None else _json(prepared.creation_state)


def _creation(prepared: PreparedCreate) -> Any:
    """The creation state bound through SQLAlchemy: SQL NULL when unknown (not JSON null)."""
    return null() if prepared.creation_state is None else prepared.creation_state


def _document(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    return dict(codec.loads(value) if isinstance(value, (str, bytes)) else value)


async def _create_postgresql(
    db: Database, key: tuple[str, str], prepared: PreparedCreate, now: datetime
) -> Created:
    params = {
        "app": key[0],
        "user": key[1],
        "sid": prepared.session_id,
        "state": _json(prepared.session_state),
        "creation": _creation_json(prepared),
        "now": now,
        "adelta": _json(prepared.app_state) if prepared.app_state else None,
        "udelta": _json(prepared.user_state) if prepared.user_state else None,
    }
    async with db.driver_connection() as connection:
        row = await connection.fetchrow(_PG_CREATE.sql, *_PG_CREATE.args(params))
    if row is None:
        return None
    return row["update_time"], _document(row["app_state"]), _document(row["user_state"])


async def _create_in_transaction(
    db: Database, key: tuple[str, str], prepared: PreparedCreate, now: datetime
) -> Created:
    params = {"app": key[0], "user": key[1], "sid": prepared.session_id, "now": now}
    insert = statements.insert_session(db.dialect)
    row_params = {
        **params,
        "state": prepared.session_state,
        "creation": _creation(prepared),
        "revision": len(prepared.events),
    }
    async with db.write() as connection:
        row = (await connection.execute(insert, row_params)).first()
        if row is None:
            return None
        if prepared.events:
            await connection.execute(_INSERT_EVENTS, _event_rows(key, prepared))
        scopes = []
        for user, delta in ((False, prepared.app_state), (True, prepared.user_state)):
            if delta:
                statement = statements.upsert_scope(db.dialect, user=user)
                state = await connection.scalar(statement, {**params, "delta": delta})
            else:
                state = await connection.scalar(statements.SCOPE_STATE[user], params)
            scopes.append(dict(state or {}))
    return row.update_time, scopes[0], scopes[1]


def _event_rows(key: tuple[str, str], prepared: PreparedCreate) -> list[dict[str, Any]]:
    return [
        {
            "app_name": key[0],
            "user_id": key[1],
            "session_id": prepared.session_id,
            "sequence": sequence,
            "id": event.id,
            "invocation_id": event.invocation_id,
            "timestamp": event.timestamp,
            "payload": event.event_json,
        }
        for sequence, event in enumerate(prepared.events, 1)
    ]


_CREATORS = {"postgresql": _create_postgresql, "sqlite": _create_in_transaction}


async def create(
    db: Database, key: tuple[str, str], prepared: PreparedCreate, now: datetime
) -> Created:
    """Create the session ``(*key, prepared.session_id)`` (see the module docstring)."""
    if prepared.events:
        return await _create_in_transaction(db, key, prepared, now)
    return await _CREATORS[db.dialect](db, key, prepared, now)
