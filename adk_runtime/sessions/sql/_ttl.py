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
- it is **removed** in the background: at most once per sweep interval (the TTL, capped at a
  minute) per app and process, a create starts a sweep, which walks the app's expired sessions
  through the ``(app_name, update_time, …)`` index a batch at a time and deletes each one in
  its own short statement (the retention walk of :mod:`adk_runtime.sessions.retention`): no
  long transaction, no table scan. ``adk-runtime sessions prune`` does the same on demand.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, or_

from adk_runtime.sessions.retention import check_ttl_seconds, prune
from adk_runtime.sessions.sql.tables import sessions
from adk_runtime.sql.types import epoch_now

if TYPE_CHECKING:
    from adk_runtime.sessions.base import BaseSessionService

__all__ = ["NEVER", "Expiry", "alive"]

NEVER = datetime(1970, 1, 1, tzinfo=timezone.utc)
"""The freshness bound when nothing expires (every update time is after it)."""

_BATCH = 500
_MAX_SWEEP_INTERVAL = 60.0


def alive(fresh: ColumnElement[Any]) -> ColumnElement[bool]:
    """SQL: the session is there for readers (written at ``fresh`` or after, or held)."""
    return or_(sessions.c.update_time >= fresh, sessions.c.claim_until > epoch_now())


class Expiry:
    """The expiry rule of one service (inactive when ``ttl_seconds`` is None)."""

    def __init__(self, ttl_seconds: float | None) -> None:
        """Check ``ttl_seconds`` (see :func:`.retention.check_ttl_seconds`)."""
        self.ttl = check_ttl_seconds(ttl_seconds)
        self._next_sweep: dict[str, float] = {}
        self._sweeps: set[asyncio.Task[object]] = set()

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

    def maybe_sweep(self, service: BaseSessionService, app_name: str) -> None:
        """Start a background sweep of the app's expired sessions, if one is due."""
        if self.ttl is None:
            return
        now = time.monotonic()
        if self._next_sweep.get(app_name, 0.0) > now:
            return
        self._next_sweep[app_name] = now + min(self.ttl, _MAX_SWEEP_INTERVAL)
        before = self.fresh_after().timestamp()
        task = asyncio.get_running_loop().create_task(
            prune(service, app_name, None, before, _BATCH, dry_run=False)
        )
        self._sweeps.add(task)
        task.add_done_callback(self._sweeps.discard)

    async def close(self) -> None:
        """Stop the sweeps still running (what they deleted stays deleted)."""
        for task in list(self._sweeps):
            task.cancel()
        if self._sweeps:
            await asyncio.gather(*self._sweeps, return_exceptions=True)
