"""Session claims and open invocations on Redis: ``claim.lua``, ``start.lua``, ``open.lua``.

A claim lives in the session's meta hash (see :mod:`._keys` and ``lua/claim.lua``); each step
(acquire, extend, release, finish) is one script call, so one round trip. A turn's start
(claim, read, message: ``TurnStart``) is one too, ``start.lua``.
"""

from __future__ import annotations

import math

from adk_runtime.errors import SessionNotFoundError
from adk_runtime.events import event_from_stored
from adk_runtime.sessions._prepare import AppendResult, PreparedAppend, ReadPlan, SessionTail
from adk_runtime.sessions.claims import ClaimAttempt, ClaimedStart
from adk_runtime.sessions.invocations import InvocationStatus, OpenInvocation
from adk_runtime.sessions.redis import _protocol as protocol
from adk_runtime.sessions.redis._keys import AppKeys, SessionKeys, parse_app_index_member
from adk_runtime.sessions.redis._link import Link
from adk_runtime.sessions.redis._snapshots import event_window, session_of
from adk_runtime.sessions.redis._values import text

__all__ = ["open_invocations", "start_turn", "step", "try_claim"]

_STATUSES: dict[str, InvocationStatus] = {
    "running": "running",
    "failed": "failed",
    "crashed": "crashed",
}


async def step(
    link: Link,
    keys: SessionKeys,
    op: protocol.ClaimOp,
    token: int,
    lease_seconds: float,
    ttl_ms: int,
    mark: str | None = None,
) -> protocol.ClaimReply:
    """One step of the claim (``acquire``, ``extend``, ``release``, ``finish``): one script."""
    lease_ms = math.ceil(lease_seconds * 1000)
    call = protocol.claim_call(
        keys, op, token=token, lease_ms=lease_ms, mark=mark, ttl_ms=ttl_ms, ack_ms=link.ack_ms
    )
    return protocol.parse_claim(await link.write("claim", call))


async def try_claim(
    link: Link, keys: SessionKeys, token: int, lease_seconds: float, ttl_ms: int, mark: str | None
) -> ClaimAttempt:
    """Acquire the session's claim with ``token`` unless another lease runs (one script)."""
    reply = await step(link, keys, "acquire", token, lease_seconds, ttl_ms, mark)
    if reply.status == "missing":
        raise SessionNotFoundError(f"Session {keys.session_id!r} does not exist.")
    if reply.status == "ok":
        return ClaimAttempt(
            reply.token, took_over=reply.took_over, open_invocation=reply.open_invocation
        )
    return ClaimAttempt(None, reply.held_ms / 1000)


async def start_turn(
    link: Link,
    keys: SessionKeys,
    token: int,
    lease_seconds: float,
    ttl_ms: int,
    mark: str | None,
    read: ReadPlan,
    message: PreparedAppend | None,
) -> ClaimedStart | None:
    """Claim a released session, read it and commit ``message``: one script (``start.lua``).

    None: the session is held or was left unreleased (nothing written).
    """
    since = None
    if read.since is not None and read.identity is not None:
        since = (read.since, read.identity)
    call = protocol.start_call(
        keys,
        message,
        token=token,
        lease_ms=math.ceil(lease_seconds * 1000),
        mark=mark,
        window=event_window(read.config),
        since=since,
        ttl_ms=ttl_ms,
        ack_ms=link.ack_ms,
    )
    reply = protocol.parse_start(await link.write("start", call))
    if reply.status == "missing":
        raise SessionNotFoundError(f"Session {keys.session_id!r} does not exist.")
    if reply.status == "busy" or reply.read is None:
        return None
    session = session_of(keys, reply.read)
    size = sum(len(item) for item in reply.read.events)
    tail = SessionTail(session, session._incarnation or "", size)
    attempt = ClaimAttempt(token, open_invocation=reply.open_invocation or None)
    commit = reply.message
    if message is None or commit is None:
        return attempt, tail, None
    if commit.status == "ok":
        return attempt, tail, AppendResult(message.event, commit.sequence, commit.mtime)
    assert commit.stored_json is not None  # "dup": stored before, nothing written
    stored = event_from_stored(commit.stored_json, keys.session_id, commit.sequence - 1)
    return attempt, tail, AppendResult(stored, commit.sequence, commit.mtime, already_stored=True)


async def open_invocations(
    link: Link, app: AppKeys, user_id: str | None, session_id: str | None
) -> list[OpenInvocation]:
    """The open invocations of the app (of one user, of one session), from its open index."""
    reply = await link.read("open", protocol.open_call(app, user_id, session_id))
    found = []
    for i in range(0, len(reply), 5):
        owner, sid = parse_app_index_member(text(reply[i]))
        status = _STATUSES[text(reply[i + 3])]
        started, held_for = int(reply[i + 2]) / 1000, int(reply[i + 4]) / 1000
        invocation = text(reply[i + 1])
        found.append(
            OpenInvocation(app.app_name, owner, sid, invocation, started, status, held_for)
        )
    return found
