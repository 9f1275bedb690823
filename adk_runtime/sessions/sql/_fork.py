"""Forking a session on SQL: one transaction (see :mod:`adk_runtime.sessions.fork`).

In one write transaction: read the source row (``FOR SHARE`` on PostgreSQL, so it cannot be
deleted before the commit; SQLite's ``BEGIN IMMEDIATE`` already excludes other writers),
check it is the incarnation the fork was computed from and holds the events to copy, insert
the new row (``ON CONFLICT DO NOTHING``: a taken key inserts nothing; its creation state is
the source's, NULL when unknown) and copy the event rows
with one ``INSERT … SELECT``. Any failed check raises, and the transaction rolls back.
"""

from __future__ import annotations

import functools
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, String, bindparam, insert, null, select
from sqlalchemy.sql import Insert

from adk_runtime.errors import AlreadyExistsError, SessionNotFoundError
from adk_runtime.sessions.fork import PreparedFork
from adk_runtime.sessions.sql import _statements as statements
from adk_runtime.sessions.sql.tables import events, sessions
from adk_runtime.sql.engine import Database
from adk_runtime.sql.types import DateTimeUTC, JSONDocument

__all__ = ["fork"]

_NEW_SID = bindparam("new_sid", type_=String)
_COPIED = bindparam("copied", type_=Integer)

_SOURCE: statements.AnySelect = (
    select(sessions.c.create_time, sessions.c.revision)
    .where(
        sessions.c.app_name == statements.APP,
        sessions.c.user_id == statements.USER,
        sessions.c.id == statements.SID,
    )
    .with_for_update(read=True)
)

_COPY_EVENTS: Insert = insert(events).from_select(
    [
        events.c.app_name,
        events.c.user_id,
        events.c.session_id,
        events.c.sequence,
        events.c.id,
        events.c.invocation_id,
        events.c.timestamp,
        events.c.payload,
    ],
    select(
        events.c.app_name,
        events.c.user_id,
        _NEW_SID.label("session_id"),
        events.c.sequence,
        events.c.id,
        events.c.invocation_id,
        events.c.timestamp,
        events.c.payload,
    ).where(
        events.c.app_name == statements.APP,
        events.c.user_id == statements.USER,
        events.c.session_id == statements.SID,
        events.c.sequence <= _COPIED,
    ),
)


@functools.lru_cache(maxsize=4)
def _insert_row(dialect: str) -> Any:
    stmt = statements.INSERTS[dialect](sessions).values(
        app_name=statements.APP,
        user_id=statements.USER,
        id=_NEW_SID,
        state=bindparam("state", type_=JSONDocument),
        creation_state=bindparam("creation", type_=JSONDocument),
        revision=_COPIED,
        create_time=bindparam("now", type_=DateTimeUTC),
        update_time=bindparam("now", type_=DateTimeUTC),
    )
    return stmt.on_conflict_do_nothing().returning(sessions.c.update_time)


async def fork(
    db: Database, key: tuple[str, str, str], prepared: PreparedFork, now: datetime
) -> None:
    """Write the fork of ``key`` (see the module docstring)."""
    params = {
        "app": key[0],
        "user": key[1],
        "sid": key[2],
        "new_sid": prepared.session_id,
        "copied": prepared.sequence,
        "now": now,
        "state": prepared.session_state,
        "creation": null() if prepared.creation_state is None else prepared.creation_state,
    }
    async with db.write() as connection:
        source = (await connection.execute(_SOURCE, params)).first()
        if (
            source is None
            or source.create_time.isoformat() != prepared.incarnation
            or source.revision < prepared.sequence
        ):
            raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
        if (await connection.execute(_insert_row(db.dialect), params)).first() is None:
            raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")
        copied = await connection.execute(_COPY_EVENTS, params)
        if copied.rowcount != prepared.sequence:
            raise SessionNotFoundError(f"Session {key[2]!r} changed while it was forked.")
