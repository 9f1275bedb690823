"""Claims and open invocations on Spanner: each step one read-write transaction.

A step reads the session's claim with ``CURRENT_TIMESTAMP()`` (the query that begins the
transaction) and commits the new claim with a mutation: two round trips (Spanner has no
conditional write in one RPC). A lease's end is ``claim_until`` (Spanner's clock);
``claim_until`` NULL means released (or never claimed); an expired, unreleased lease is a
holder that died (``took_over``). ``open_since`` is the commit timestamp of the step that
recorded the open invocation. A claim on an expired session (:mod:`._expiry`) finds no
session; a lease moves the session's ``expire_at`` to its end if that is later.
"""

from __future__ import annotations

from typing import Any

from adk_runtime.errors import SessionNotFoundError
from adk_runtime.sessions.claims import ClaimAttempt, SessionKey, new_claim_token
from adk_runtime.sessions.invocations import OpenInvocation, status_of
from adk_runtime.sessions.spanner import _queries
from adk_runtime.sessions.spanner._expiry import lease_expiry
from adk_runtime.sessions.spanner._link import Link, Transaction, Write
from adk_runtime.sessions.spanner._values import COMMIT_TIMESTAMP, Param, Timestamp, seconds

__all__ = ["extend", "open_invocations", "release", "try_claim"]

_KEY_COLUMNS = ("app_name", "user_id", "session_id")


def _params(key: SessionKey) -> dict[str, Param]:
    return {"app": key[0], "user": key[1], "sid": key[2]}


async def _read(transaction: Transaction, key: SessionKey, ttl: int) -> list[Any] | None:
    """The claim columns of :func:`._queries.claim_check` (``ttl``: its ``@ttl``)."""
    rows = await transaction.query(_queries.claim_check(), _params(key) | {"ttl": ttl})
    return rows[0] if rows else None


def _claim_write(key: SessionKey, **columns: Any) -> Write:
    return Write("update", "adk_sessions", (*_KEY_COLUMNS, *columns), (*key, *columns.values()))


def _lease_end(now: int, lease_seconds: float) -> Timestamp:
    return Timestamp(now + round(lease_seconds * 1_000_000))


async def try_claim(
    link: Link,
    key: SessionKey,
    lease_seconds: float,
    mark: str | None,
    token: int | None,
    ttl: int,
) -> ClaimAttempt:
    """``BaseSessionService._try_claim`` (see its contract; ``ttl``: microseconds)."""
    wanted = new_claim_token() if token is None else token

    async def body(transaction: Transaction) -> ClaimAttempt:
        row = await _read(transaction, key, ttl)
        if row is None or not row[6]:
            raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
        stored, until, took_over_before, open_invocation, now, expire_at, _ = row
        end = _lease_end(now, lease_seconds)
        expiry = lease_expiry(expire_at, end)
        if stored == wanted and until is not None:  # a retry of this very acquisition
            transaction.write(_claim_write(key, claim_until=end, expire_at=expiry))
            return ClaimAttempt(wanted, took_over=took_over_before, open_invocation=open_invocation)
        if until is not None and until > now:
            return ClaimAttempt(None, (until - now) / 1_000_000)
        took_over = until is not None  # ran out, never released
        columns: dict[str, Any] = {
            "claim_token": wanted,
            "claim_until": end,
            "claim_took_over": took_over,
            "expire_at": expiry,
        }
        if mark is not None and not (took_over and open_invocation is not None):
            columns |= {"open_invocation": mark, "open_since": COMMIT_TIMESTAMP}
            open_invocation = mark
        transaction.write(_claim_write(key, **columns))
        return ClaimAttempt(wanted, took_over=took_over, open_invocation=open_invocation)

    attempt, _ = await link.transact("claiming a session", body)
    return attempt


async def extend(
    link: Link, key: SessionKey, token: int, lease_seconds: float, mark: str | None, ttl: int
) -> bool:
    """``BaseSessionService._extend_claim`` (see its contract; ``ttl``: microseconds)."""

    async def body(transaction: Transaction) -> bool:
        row = await _read(transaction, key, ttl)
        if row is None or row[0] != token:
            return False
        end = _lease_end(row[4], lease_seconds)
        columns: dict[str, Any] = {"claim_until": end, "expire_at": lease_expiry(row[5], end)}
        if mark is not None:
            columns |= {"open_invocation": mark, "open_since": COMMIT_TIMESTAMP}
        transaction.write(_claim_write(key, **columns))
        return True

    held, _ = await link.transact("renewing a claim", body)
    return held


async def release(link: Link, key: SessionKey, token: int, finished: bool, ttl: int) -> None:
    """``BaseSessionService._release_claim`` (see its contract; ``ttl``: microseconds)."""

    async def body(transaction: Transaction) -> None:
        row = await _read(transaction, key, ttl)
        if row is None or row[0] != token:
            return
        columns: dict[str, Any] = {"claim_until": None}
        if finished:
            columns |= {"open_invocation": None, "open_since": None}
        transaction.write(_claim_write(key, **columns))

    await link.transact("releasing a claim", body)


async def open_invocations(
    link: Link, app_name: str, user_id: str | None, session_id: str | None, ttl: int
) -> list[OpenInvocation]:
    """``BaseSessionService._open_invocations``: one read of the null-filtered index."""
    params: dict[str, Param] = {"app": app_name, "ttl": ttl}
    if user_id is not None:
        params["user"] = user_id
    if session_id is not None:
        params["sid"] = session_id
    sql = _queries.open_invocations(user=user_id is not None, session=session_id is not None)
    found = []
    for user, sid, invocation, since, until, now in await link.read(sql, params):
        held_for = 0.0 if until is None else max(until - now, 0) / 1_000_000
        status = status_of(released=until is None, held=held_for > 0)
        found.append(
            OpenInvocation(app_name, user, sid, invocation, seconds(since), status, held_for)
        )
    return found
