"""Idle expiry on Spanner (``ttl_seconds``): the same contract as SQL's and Redis's.

A session not written for ``ttl_seconds`` and not held by a turn (no claim's lease runs) is
**expired**; both are judged by Spanner's clock in the statement itself
(:data:`._queries.ALIVE`: ``update_time`` is the last write's commit timestamp, a lease ends at
``claim_until``), so a service's own clock never matters, and a held session is never idle,
however long its turn's step takes.

- Readers never see it: ``get_session`` returns None, ``list_sessions`` and the interrupted
  invocations leave it out, a turn cannot claim it and ``fork_session`` finds no source
  (``SessionNotFoundError``).
- An append to it raises ``SessionNotFoundError`` and writes nothing (the append's query reads
  the rule with the revision it checks), in a turn or outside one: a late writer never brings
  it back. App and user state are other rows and stay.
- ``create_session`` with its id deletes it and creates the new one, in one transaction.

**Removal** takes two paths, because neither alone does the job:

1. *Spanner's row deletion policy* on ``adk_sessions``:
   ``OLDER_THAN(expire_at, INTERVAL 1 DAY)`` (the events go with their session: they are
   interleaved ``ON DELETE CASCADE``). Every write of a service with a TTL sets ``expire_at``
   to when the session expires — its read time plus the TTL, or the end of the lease holding
   it if that is later (a claim or a renewal moves it to its lease's end too) — and a service
   without a TTL sets it to NULL (never removed). Spanner runs the policy in the background at
   no cost to requests, and it removes sessions of apps nobody uses any more. But a policy
   counts whole days and Spanner removes rows within about three days of their time; the day
   of grace keeps a session whose writer's clock and Spanner's differ, or whose lease was
   renewed late, safe from it. (The emulator accepts the policy and never runs it.)
2. *Our sweep*, as on SQL (:class:`~adk_runtime.sessions.retention.IdleExpiry`): at most once
   per sweep interval (the TTL, capped at a minute) per app and process, a create starts the
   retention walk over the app's sessions idle longer than the TTL (the sharded
   ``adk_sessions_by_app`` index, a batch at a time), each deleted in its own short
   transaction if still expired and unheld. This keeps storage near the TTL when it is much
   shorter than a day. ``prune_sessions`` (``adk-runtime sessions prune``) does the same on
   demand.
"""

from __future__ import annotations

from adk_runtime.sessions.retention import MAX_TTL_SECONDS, IdleExpiry
from adk_runtime.sessions.spanner._values import Timestamp

__all__ = ["Expiry", "lease_expiry"]


class Expiry(IdleExpiry):
    """The TTL of one service, as the statements use it."""

    @property
    def ttl_micros(self) -> int:
        """The ``@ttl`` parameter of :data:`._queries.ALIVE` (a century without a TTL)."""
        return round((self.ttl or MAX_TTL_SECONDS) * 1_000_000)

    def expire_at(self, now: int, until: int | None = None) -> Timestamp | None:
        """``expire_at`` of a session written at ``now`` (held until ``until``, if given)."""
        if self.ttl is None:
            return None
        end = now + self.ttl_micros
        return Timestamp(end if until is None else max(end, until))


def lease_expiry(stored: int | None, until: int) -> Timestamp | None:
    """``expire_at`` after a claim step leased the session until ``until``.

    A claim is no write (the TTL does not restart), but the row must outlive the lease.
    """
    return None if stored is None else Timestamp(max(stored, until))
