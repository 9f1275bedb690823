"""The session tables (declared on the shared :data:`adk_runtime.sql.schema.metadata`).

- ``adk_sessions``: one row per (app_name, user_id, id) with the materialized session state,
  the integer ``revision`` (= number of events) and UTC create/update times.
  ``claim_token`` / ``claim_until`` are the session's turn claim: the fencing token of the
  latest claim (63 random bits, never reused; see :mod:`adk_runtime.sessions.claims`) and,
  while it is held, when its lease runs out (seconds since the epoch, by the database's
  clock; NULL when released); ``claim_took_over`` is what its acquisition answered (for a
  retry of it with the same token; NULL: false). ``open_invocation_id`` / ``open_since`` are
  the session's open invocation (:mod:`adk_runtime.sessions.invocations`): set by a turn's
  claim, cleared when the turn ends normally. ``creation_state`` is the session-scoped state
  the session was created with (a fork's: its source's), read only by fork, rewind and export
  (:mod:`adk_runtime.sessions.fork`); NULL: unknown (a row from before migration 0006).
- ``adk_events``: one row per committed event, keyed by the session and its gapless
  ``sequence`` (1, 2, …); the event id is unique within its session; the payload is the
  event's stored JSON text (:func:`adk_runtime.events.event_to_json`).
- ``adk_app_states`` / ``adk_user_states``: the ``app:`` and ``user:`` state.

Indexes: the events primary key serves the last k events of a session; ``(session,
timestamp)`` serves ``after_timestamp``; ``(session, invocation_id)`` looks up an
invocation; ``(app_name, update_time, user_id, id)`` and ``(app_name, user_id,
update_time, id)`` list sessions most recently updated first, page by page; a partial index
on ``(app_name, user_id, id)`` holds only the sessions with an open invocation. Names carry an
``adk_`` prefix so the tables can live next to google-adk's in one database.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Double,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)

from adk_runtime.sessions._validation import MAX_ID_LENGTH
from adk_runtime.sql.schema import metadata
from adk_runtime.sql.types import DateTimeUTC, JSONDocument

__all__ = ["app_states", "events", "sessions", "user_states"]


_TOKEN = BigInteger().with_variant(Integer(), "sqlite")
"""A claim's fencing token: 63 random bits (SQLite's INTEGER already holds 64)."""


def _id(name: str, **kwargs: object) -> Column[str]:
    return Column(name, String(MAX_ID_LENGTH), nullable=False, **kwargs)  # type: ignore[arg-type]


sessions = Table(
    "adk_sessions",
    metadata,
    _id("app_name", primary_key=True),
    _id("user_id", primary_key=True),
    _id("id", primary_key=True),
    Column("state", JSONDocument, nullable=False),
    Column("revision", Integer, nullable=False),
    Column("create_time", DateTimeUTC, nullable=False),
    Column("update_time", DateTimeUTC, nullable=False),
    Column("claim_token", _TOKEN, nullable=False, server_default="0"),
    Column("claim_until", Double, nullable=True),
    Column("claim_took_over", Boolean, nullable=True),
    Column("open_invocation_id", String(MAX_ID_LENGTH), nullable=True),
    Column("open_since", Double, nullable=True),
    Column("creation_state", JSONDocument, nullable=True),
    Index(None, "app_name", "update_time", "user_id", "id"),
    Index(None, "app_name", "user_id", "update_time", "id"),
    Index(
        "ix_adk_sessions_open_invocations",
        "app_name",
        "user_id",
        "id",
        sqlite_where=text("open_invocation_id IS NOT NULL"),
        postgresql_where=text("open_invocation_id IS NOT NULL"),
    ),
)

events = Table(
    "adk_events",
    metadata,
    _id("app_name", primary_key=True),
    _id("user_id", primary_key=True),
    _id("session_id", primary_key=True),
    Column("sequence", Integer, primary_key=True, autoincrement=False),
    _id("id"),
    Column("invocation_id", String(MAX_ID_LENGTH), nullable=False),
    Column("timestamp", Double, nullable=False),
    Column("payload", Text, nullable=False),
    ForeignKeyConstraint(
        ["app_name", "user_id", "session_id"],
        ["adk_sessions.app_name", "adk_sessions.user_id", "adk_sessions.id"],
        ondelete="CASCADE",
    ),
    UniqueConstraint("app_name", "user_id", "session_id", "id"),
    Index(None, "app_name", "user_id", "session_id", "timestamp"),
    Index(None, "app_name", "user_id", "session_id", "invocation_id"),
)

app_states = Table(
    "adk_app_states",
    metadata,
    _id("app_name", primary_key=True),
    Column("state", JSONDocument, nullable=False),
    Column("update_time", DateTimeUTC, nullable=False),
)

user_states = Table(
    "adk_user_states",
    metadata,
    _id("app_name", primary_key=True),
    _id("user_id", primary_key=True),
    Column("state", JSONDocument, nullable=False),
    Column("update_time", DateTimeUTC, nullable=False),
)
