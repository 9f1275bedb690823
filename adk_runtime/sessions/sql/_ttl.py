"""Idle expiry on SQL (``ttl_seconds``), like Redis's: an idle session is gone for readers.

A session not written for ``ttl_seconds`` (its ``update_time``, the writers' clock) and not
held by a turn (no claim's lease runs, by the database's clock: a held session is never idle,
however long its turn's step takes; :func:`alive`) is **expired**:

- readers never see it: ``get_session`` returns None, ``list_sessions`` stops before it (the
  listing is newest first, so the expired sessions are its tail), a turn cannot claim it
  (``SessionNotFoundError``), ``fork_session`` finds no source, and it is not listed among
  interrupted invocations;
- an append to it raises ``SessionNotFoundError`` and writes nothing, in a turn or outside
  one, as on Redis, where its keys are gone (the append's compare-and-set checks the update
  time): an expired session is never brought back by a late writer;
- ``create_session`` with its id first deletes it (one statement), then creates the new one;
- it is **removed** in the background (:class:`~adk_runtime.sessions.retention.IdleExpiry`):
  at most once per sweep interval (the TTL, capped at a minute) per app and process, a create
  starts a sweep, which walks the app's expired sessions
  through the ``(app_name, update_time, …)`` index a batch at a time and deletes each one in
  its own short statement (the retention walk of :mod:`adk_runtime.sessions.retention`): no
  long transaction, no table scan. ``adk-runtime sessions prune`` does the same on demand.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import ColumnElement, or_

from adk_runtime.sessions.retention import IdleExpiry
from adk_runtime.sessions.sql.tables import sessions
from adk_runtime.sql.types import epoch_now

__all__ = ["NEVER", "Expiry", "alive"]

NEVER = datetime(1970, 1, 1, tzinfo=timezone.utc)
"""The freshness bound when nothing expires (every update time is after it)."""


def alive(fresh: ColumnElement[Any]) -> ColumnElement[bool]:
    """SQL: the session is there for readers (written at ``fresh`` or after, or held)."""
    return or_(sessions.c.update_time >= fresh, sessions.c.claim_until > epoch_now())


class Expiry(IdleExpiry):
    """The expiry rule of one service (inactive when ``ttl_seconds`` is None)."""

    def fresh_after(self) -> datetime:
        """Sessions last written before this are expired (:data:`NEVER` without a TTL)."""
        if self.ttl is None:
            return NEVER
        return datetime.now(timezone.utc) - timedelta(seconds=self.ttl)

    def alive(self, update_time: datetime, held: object = False) -> bool:
        """Whether a session last written at ``update_time`` is still there for readers.

        ``held``: a turn's claim on it still runs (read with the row, by the database's
        clock); a held session is never idle.
        """
        return self.ttl is None or bool(held) or update_time >= self.fresh_after()
