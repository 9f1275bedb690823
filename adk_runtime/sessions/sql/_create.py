"""Creating a session: the row and the app/user state merges, atomically.

- PostgreSQL: one statement (data-modifying CTEs) in autocommit mode, one round trip. It
  returns nothing when the key is taken (``ON CONFLICT DO NOTHING``), and then writes nothing:
  the state merges read their input from the inserted row.
- SQLite: one ``BEGIN IMMEDIATE`` transaction of SQLAlchemy statements (round trips cost
  nothing in process).

Both return the new row's update time and the app and user state after the merge.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from adk_runtime import codec
from adk_runtime.sessions.base import PreparedCreate
from adk_runtime.sessions.sql import _statements as statements
from adk_runtime.sql.engine import Database

__all__ = ["Created", "create"]

# (update_time, app state, user state), or None when the session exists already.
Created = tuple[datetime, dict[str, Any], dict[str, Any]] | None

_PG_CREATE = """
WITH s AS (
  INSERT INTO adk_sessions (app_name, user_id, id, state, revision, create_time, update_time)
  VALUES ($1, $2, $3, $4::jsonb, 0, $5, $5)
  ON CONFLICT DO NOTHING
  RETURNING update_time
), a AS (
  INSERT INTO adk_app_states AS t (app_name, state, update_time)
  SELECT $1, $6::jsonb, $5 FROM s WHERE $6::jsonb IS NOT NULL
  ON CONFLICT (app_name) DO UPDATE
  SET state = t.state || EXCLUDED.state, update_time = EXCLUDED.update_time
  RETURNING state
), u AS (
  INSERT INTO adk_user_states AS t (app_name, user_id, state, update_time)
  SELECT $1, $2, $7::jsonb, $5 FROM s WHERE $7::jsonb IS NOT NULL
  ON CONFLICT (app_name, user_id) DO UPDATE
  SET state = t.state || EXCLUDED.state, update_time = EXCLUDED.update_time
  RETURNING state
)
SELECT s.update_time,
  COALESCE((SELECT state FROM a),
           (SELECT state FROM adk_app_states WHERE app_name = $1)) AS app_state,
  COALESCE((SELECT state FROM u),
           (SELECT state FROM adk_user_states WHERE app_name = $1 AND user_id = $2)) AS user_state
FROM s
"""


def _json(value: Mapping[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _document(value: Any) -> dict[str, Any]:
    if value is None:
        return {}
    return dict(codec.loads(value) if isinstance(value, (str, bytes)) else value)


async def _create_postgresql(
    db: Database, key: tuple[str, str], prepared: PreparedCreate, now: datetime
) -> Created:
    args = [
        *key,
        prepared.session_id,
        _json(prepared.session_state),
        now,
        _json(prepared.app_state) if prepared.app_state else None,
        _json(prepared.user_state) if prepared.user_state else None,
    ]
    async with db.driver_connection(write=True) as connection:
        row = await connection.fetchrow(_PG_CREATE, *args)
    if row is None:
        return None
    return row["update_time"], _document(row["app_state"]), _document(row["user_state"])


async def _create_sqlite(
    db: Database, key: tuple[str, str], prepared: PreparedCreate, now: datetime
) -> Created:
    params = {"app": key[0], "user": key[1], "sid": prepared.session_id, "now": now}
    insert = statements.insert_session(db.dialect)
    async with db.write() as connection:
        inserted = await connection.execute(insert, {**params, "state": prepared.session_state})
        row = inserted.first()
        if row is None:
            return None
        scopes = []
        for user, delta in ((False, prepared.app_state), (True, prepared.user_state)):
            if delta:
                statement = statements.upsert_scope(db.dialect, user=user)
                state = await connection.scalar(statement, {**params, "delta": delta})
            else:
                state = await connection.scalar(statements.SCOPE_STATE[user], params)
            scopes.append(dict(state or {}))
    return row.update_time, scopes[0], scopes[1]


_CREATORS = {"postgresql": _create_postgresql, "sqlite": _create_sqlite}


async def create(
    db: Database, key: tuple[str, str], prepared: PreparedCreate, now: datetime
) -> Created:
    """Create the session ``(*key, prepared.session_id)`` (see the module docstring)."""
    return await _CREATORS[db.dialect](db, key, prepared, now)
