"""Retention: delete the sessions of an app (or of one user) idle longer than a given time.

:meth:`BaseSessionService.prune_sessions` walks the idle sessions oldest first, a batch at a
time, through an index (SQL: ``(app_name, update_time, …)`` / ``(app_name, user_id,
update_time, …)``; Redis: the app's or the user's listing sorted set, scored by update time),
so it reads only the sessions it prunes, never every session or every key. Each session is
deleted on its own (one short statement or script, no long transaction or lock), and only if
it is still idle then and no turn holds it: a conversation that came back to life between the
listing and the delete is kept. App and user state stay, as with ``delete_session``.

``dry_run`` lists what would go and deletes nothing.

**Artifacts** go too when an artifact service is given (``delete_session(...,
artifact_service=…)``, ``prune_sessions(..., artifact_service=…)``; the HTTP server and the
CLI give theirs): the session's own artifacts (not ``user:`` ones) are deleted *after* the
session delete has committed. A crash between the two leaves orphan artifacts, never a
session whose files are gone; and the artifact delete runs even when the session is already
gone, so running the delete again finishes the job. An idle TTL expiry deletes no artifacts
(the store expires sessions on its own, knowing no artifact service): prune with an artifact
service instead.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import re
import time
from datetime import timedelta
from typing import Protocol

from adk_runtime.errors import ConfigurationError, InputValidationError
from adk_runtime.sessions._cache import SessionCache

__all__ = [
    "MAX_TTL_SECONDS",
    "DeleteArtifacts",
    "IdleExpiry",
    "IdleQuery",
    "IdleSession",
    "PruneResult",
    "PruneStore",
    "check_ttl_seconds",
    "parse_idle_time",
]

MAX_BATCH = 10_000

MAX_TTL_SECONDS = 100 * 365 * 86_400.0
"""The longest idle TTL a store applies (a century): a longer one means the same, and keeps
every time computed from it (a freshness bound, a key's deadline) in range."""


class DeleteArtifacts(Protocol):
    """What a session delete needs of an artifact service (``BaseArtifactService`` has it)."""

    async def delete_session_artifacts(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[str]:
        """Delete the session's own (not ``user:``) artifacts; return their names."""
        ...


@dataclasses.dataclass(frozen=True)
class IdleSession:
    """A session found idle: its key within the app and when it was last updated.

    Attributes:
        user_id: Its user.
        session_id: Its id.
        last_update_time: Seconds since the epoch of its last write.
    """

    user_id: str
    session_id: str
    last_update_time: float

    def after(self, other: IdleSession) -> bool:
        """Whether this session comes after ``other`` in pruning order (oldest first)."""
        return (self.last_update_time, self.user_id, self.session_id) > (
            other.last_update_time,
            other.user_id,
            other.session_id,
        )


class PruneStore(Protocol):
    """What pruning needs of a session service (every ``BaseSessionService`` has it).

    The two storage steps' contracts are on ``BaseSessionService``.
    """

    @property
    def _session_cache(self) -> SessionCache | None:
        """The store's session cache, if any (a pruned session leaves it)."""
        ...

    async def _idle_sessions(self, query: IdleQuery) -> list[IdleSession]:
        """One batch of idle sessions, oldest first (see :class:`IdleQuery`)."""
        ...

    async def _delete_if_idle(self, app_name: str, idle: IdleSession, before: float) -> bool:
        """Delete the session if it is still idle and unheld; return whether it was."""
        ...


@dataclasses.dataclass(frozen=True)
class IdleQuery:
    """One batch of a prune's walk over the idle sessions.

    Attributes:
        app_name: The app.
        user_id: Only this user's sessions (None: every user's).
        before: Only sessions last written before this time (seconds since the epoch).
        after: Only sessions after this one in pruning order (None: from the oldest).
        limit: At most this many sessions.
    """

    app_name: str
    user_id: str | None
    before: float
    after: IdleSession | None
    limit: int


@dataclasses.dataclass(frozen=True)
class PruneResult:
    """What :meth:`~adk_runtime.sessions.BaseSessionService.prune_sessions` did.

    Attributes:
        sessions: The idle sessions deleted (with ``dry_run``: those that would be), oldest
            first.
        dry_run: Whether nothing was deleted.
    """

    sessions: list[IdleSession]
    dry_run: bool


async def prune(
    service: PruneStore,
    app_name: str,
    user_id: str | None,
    before: float,
    limit: int,
    *,
    dry_run: bool,
    artifacts: DeleteArtifacts | None = None,
) -> PruneResult:
    """Walk the idle sessions a batch at a time; delete each one still idle (not ``dry_run``)."""
    if before <= 0:  # idle longer than since 1970: no session was written that long ago
        return PruneResult([], dry_run)
    cache = None if dry_run else service._session_cache
    pruned: list[IdleSession] = []
    query = IdleQuery(app_name, user_id, before, None, limit)
    while True:
        batch = await service._idle_sessions(query)
        for idle in batch:
            if dry_run:
                pruned.append(idle)
            elif await service._delete_if_idle(app_name, idle, before):
                pruned.append(idle)
                if cache is not None:
                    cache.discard((app_name, idle.user_id, idle.session_id))
                if artifacts is not None:  # after the delete committed (see the docstring)
                    await artifacts.delete_session_artifacts(
                        app_name=app_name, user_id=idle.user_id, session_id=idle.session_id
                    )
        if len(batch) < limit:
            return PruneResult(pruned, dry_run)
        query = dataclasses.replace(query, after=batch[-1])


_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")


def parse_idle_time(text: str) -> float:
    """Seconds in a duration such as ``30d``, ``12h``, ``15m``, ``90s`` or ``3600``.

    Raises:
        InputValidationError: Not such a duration, or not positive.
    """
    found = _DURATION.match(text)
    if found is None:
        raise InputValidationError(
            f"{text!r} is not a duration: give a number with a unit s, m, h, d or w (e.g. 30d)."
        )
    return check_idle_seconds(float(found.group(1)) * _UNITS[found.group(2) or "s"])


def check_idle_seconds(idle: float | timedelta) -> float:
    """``idle`` in seconds, checked.

    Raises:
        InputValidationError: Not a positive, finite time.
    """
    seconds = idle.total_seconds() if isinstance(idle, timedelta) else idle
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise InputValidationError("idle_longer_than must be seconds or a timedelta.")
    if not (math.isfinite(seconds) and seconds > 0):
        raise InputValidationError("idle_longer_than must be a positive time.")
    return float(seconds)


def check_ttl_seconds(ttl_seconds: object) -> float | None:
    """A session service's ``ttl_seconds``, checked: None, or seconds capped at a century.

    Raises:
        ConfigurationError: Not None and not a finite number of seconds of at least 0.001.
    """
    if ttl_seconds is None:
        return None
    if isinstance(ttl_seconds, bool) or not isinstance(ttl_seconds, (int, float)):
        raise ConfigurationError("ttl_seconds must be a number of seconds or None.")
    # Compared before any conversion: an integer beyond every float is capped, not an
    # OverflowError.
    if isinstance(ttl_seconds, float) and not math.isfinite(ttl_seconds):
        raise ConfigurationError("ttl_seconds must be positive and finite (at least 0.001).")
    if ttl_seconds < 0.001:
        raise ConfigurationError("ttl_seconds must be positive and finite (at least 0.001).")
    if ttl_seconds >= MAX_TTL_SECONDS:
        return MAX_TTL_SECONDS
    return float(ttl_seconds)


_SWEEP_BATCH = 500
_MAX_SWEEP_INTERVAL = 60.0


class IdleExpiry:
    """A store's idle TTL (``ttl_seconds``; inactive when None) and its background sweeps.

    What "expired" means for readers is the store's (each checks it in its reads and
    writes); this holds the TTL and removes expired sessions: :meth:`maybe_sweep`.
    """

    def __init__(self, ttl_seconds: float | None) -> None:
        """Check ``ttl_seconds`` (see :func:`check_ttl_seconds`)."""
        self.ttl = check_ttl_seconds(ttl_seconds)
        self._next_sweep: dict[str, float] = {}
        self._sweeps: set[asyncio.Task[object]] = set()

    def maybe_sweep(self, service: PruneStore, app_name: str) -> None:
        """Start a background sweep of the app's expired sessions, if one is due.

        At most once per sweep interval (the TTL, capped at a minute) per app and process:
        the retention walk (:func:`prune`) over the sessions idle longer than the TTL, a
        batch at a time, each deleted on its own if still idle and unheld.
        """
        if self.ttl is None:
            return
        now = time.monotonic()
        if self._next_sweep.get(app_name, 0.0) > now:
            return
        self._next_sweep[app_name] = now + min(self.ttl, _MAX_SWEEP_INTERVAL)
        before = time.time() - self.ttl
        task = asyncio.get_running_loop().create_task(
            prune(service, app_name, None, before, _SWEEP_BATCH, dry_run=False)
        )
        self._sweeps.add(task)
        task.add_done_callback(self._sweeps.discard)

    async def close(self) -> None:
        """Stop the sweeps still running (what they deleted stays deleted)."""
        for task in list(self._sweeps):
            task.cancel()
        if self._sweeps:
            await asyncio.gather(*self._sweeps, return_exceptions=True)


def check_batch_size(batch_size: int) -> int:
    """``batch_size``, checked.

    Raises:
        InputValidationError: Not an integer from 1 to 10,000.
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int):
        raise InputValidationError("batch_size must be an integer.")
    if not 1 <= batch_size <= MAX_BATCH:
        raise InputValidationError(f"batch_size must be from 1 to {MAX_BATCH}.")
    return batch_size
