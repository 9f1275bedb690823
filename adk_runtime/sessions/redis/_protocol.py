"""The typed Python side of the Lua scripts: one argument builder and reply parser each.

Each script's ``KEYS`` and ``ARGV`` are bound to named locals from its
:class:`~adk_runtime.sessions.redis._scripts.Signature` (see :mod:`._scripts`), and the
builders here order their arguments by that same signature, so an argument can never be
passed in the wrong position. Keys are looked up by name on :class:`SessionKeys` /
:class:`AppKeys`; values are given as keyword arguments; the builders return the
``(keys, args)`` pair to run the script with. Replies are parsed into small dataclasses.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from adk_runtime import codec
from adk_runtime.sessions._prepare import PreparedAppend, PreparedCreate
from adk_runtime.sessions.fork import PreparedFork
from adk_runtime.sessions.redis._keys import AppKeys, SessionKeys, app_index_member, escape
from adk_runtime.sessions.redis._scripts import SIGNATURES, Call
from adk_runtime.sessions.redis._values import json_pairs, text

__all__ = [
    "ACK_MARKER_MS",
    "AppendReply",
    "ClaimReply",
    "CreateReply",
    "GetReply",
    "append_call",
    "claim_call",
    "create_call",
    "creation_text",
    "delete_call",
    "fork_call",
    "get_call",
    "list_call",
    "open_call",
    "parse_append",
    "parse_claim",
    "parse_create",
    "parse_get",
    "parse_list",
    "parse_start",
    "scope_call",
    "start_call",
]

ACK_MARKER_MS = 10_000
"""TTL of the marker a write script sets when it found its work done (a retry) and the service
waits for replicas: any write advances the connection's replication offset, so ``WAIT``
then proves the replicas hold everything the reply reports. Its value is never read."""


def _session_keys(keys: SessionKeys, names: Sequence[str]) -> dict[str, str]:
    app = keys.app
    every = {
        "meta": keys.meta,
        "state": keys.state,
        "events": keys.events,
        "event_ids": keys.event_ids,
        "event_times": keys.event_times,
        "app_state": app.app_state,
        "user_state": app.user_state(keys.user_id),
        "user_index": app.user_index(keys.user_id),
        "app_index": app.app_index,
        "open_index": app.open_index,
        "ack": app.ack,
    }
    return {name: every[name] for name in names}


def _scope_args(
    scopes: tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]],
) -> tuple[dict[str, int], list[str]]:
    pairs = [json_pairs(scope) for scope in scopes]
    counts = {
        name: len(flat) // 2
        for name, flat in zip(("session_pairs", "app_pairs", "user_pairs"), pairs, strict=True)
    }
    return counts, [item for flat in pairs for item in flat]


def _identity(keys: SessionKeys) -> dict[str, str]:
    return {
        "session_id": keys.session_id,
        "app_member": app_index_member(keys.user_id, keys.session_id),
    }


def append_call(keys: SessionKeys, prepared: PreparedAppend, *, ttl_ms: int, ack_ms: int) -> Call:
    """Arguments of ``append.lua``: commit ``prepared`` to the session of ``keys``.

    ``ttl_ms``: the idle TTL (0: none); ``ack_ms``: :data:`ACK_MARKER_MS` when the caller
    waits for replicas, else 0 (the same for every write builder).
    """
    signature = SIGNATURES["append"]
    counts, pairs = _scope_args(_message_scopes(prepared))
    fence = prepared.fence
    args = {
        "event_id": prepared.event.id,
        "expected_revision": prepared.expected_revision,
        "event_json": prepared.event_json,
        "timestamp": repr(prepared.event.timestamp),
        "ttl_ms": ttl_ms,
        **_identity(keys),
        **counts,
        "incarnation": prepared.incarnation or "",
        "fence": "" if fence is None else str(fence),
        "release": "1" if prepared.release else "",
        "ack_ms": ack_ms,
    }
    return signature.build(_session_keys(keys, signature.keys), args, pairs)


def start_call(
    keys: SessionKeys,
    message: PreparedAppend | None,
    *,
    token: int,
    lease_ms: int,
    mark: str | None,
    window: tuple[int, str],
    since: tuple[int, str] | None,
    ttl_ms: int,
    ack_ms: int,
) -> Call:
    """Arguments of ``start.lua``: a turn's claim, read and message (None: none).

    ``window``: the read's ``(count, after)`` (as :func:`get_call`); ``since``: the cache's
    ``(revision, nonce)`` instead (the events after that revision of that incarnation).
    """
    signature = SIGNATURES["start"]
    scopes = ({}, {}, {}) if message is None else _message_scopes(message)
    counts, pairs = _scope_args(scopes)
    count, after = window
    args = {
        "token": str(token),
        "lease_ms": lease_ms,
        "mark": mark or "",
        "ttl_ms": ttl_ms,
        "count": count,
        "after": after,
        "since": -1 if since is None else since[0],
        "identity": "" if since is None else since[1],
        "event_id": "" if message is None else message.event.id,
        "event_json": "" if message is None else message.event_json,
        "timestamp": "" if message is None else repr(message.event.timestamp),
        **_identity(keys),
        **counts,
        "ack_ms": ack_ms,
    }
    return signature.build(_session_keys(keys, signature.keys), args, pairs)


def _message_scopes(
    prepared: PreparedAppend,
) -> tuple[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]:
    return (prepared.session_delta, prepared.app_delta, prepared.user_delta)


ClaimOp = Literal["acquire", "extend", "release", "finish"]


def claim_call(
    keys: SessionKeys,
    op: ClaimOp,
    *,
    token: int = 0,
    lease_ms: int = 0,
    mark: str | None = None,
    ttl_ms: int = 0,
    ack_ms: int = 0,
) -> Call:
    """Arguments of ``claim.lua`` (``mark``: the invocation to record as open)."""
    args = {
        "op": op,
        "token": str(token),
        "lease_ms": lease_ms,
        "mark": mark or "",
        "member": app_index_member(keys.user_id, keys.session_id),
        "ttl_ms": ttl_ms,
        "ack_ms": ack_ms,
    }
    signature = SIGNATURES["claim"]
    return signature.build(_session_keys(keys, signature.keys), args)


def fork_call(
    source: SessionKeys,
    target: SessionKeys,
    prepared: PreparedFork,
    *,
    nonce: str,
    ttl_ms: int,
    ack_ms: int,
) -> Call:
    """Arguments of ``fork.lua``: write ``prepared`` (a fork of ``source``) at ``target``."""
    signature = SIGNATURES["fork"]
    pairs = json_pairs(prepared.session_state)
    keys = {
        "source_meta": source.meta,
        "source_events": source.events,
        "source_event_times": source.event_times,
        **_session_keys(target, [k for k in signature.keys if not k.startswith("source_")]),
    }
    args = {
        "source_nonce": prepared.incarnation or "",
        "copied": prepared.sequence,
        "ttl_ms": ttl_ms,
        **_identity(target),
        "nonce": nonce,
        "state_pairs": len(pairs) // 2,
        "creation": creation_text(prepared.creation_state),
        "ack_ms": ack_ms,
    }
    return signature.build(keys, args, [*pairs, *prepared.event_ids])


def open_call(app: AppKeys, user_id: str | None, session_id: str | None) -> Call:
    """Arguments of ``open.lua``: the open invocations of the app, a user or a session."""
    args = {
        "base": app.base,
        "user": "" if user_id is None else escape(user_id),
        "session": "" if session_id is None else escape(session_id),
    }
    return SIGNATURES["open"].build({"open_index": app.open_index}, args)


@dataclasses.dataclass(frozen=True)
class ClaimReply:
    """What ``claim.lua`` did.

    Attributes:
        status: ``ok`` (claimed, extended or released), ``held`` (another claim's lease runs),
            ``lost`` (the token is no longer the latest), ``missing``.
        token: The claim's token (``ok``).
        held_ms: How long the other claim still holds (``held``).
        took_over: An acquisition from a claim that ran out unreleased (``ok``).
        open_invocation: The session's open invocation after an acquisition (``ok``).
    """

    status: Literal["ok", "held", "lost", "missing"]
    token: int = 0
    held_ms: int = 0
    took_over: bool = False
    open_invocation: str | None = None


def parse_claim(reply: Sequence[Any]) -> ClaimReply:
    """Parse the reply of ``claim.lua``."""
    status = text(reply[0])
    if status == "ok":
        took_over = len(reply) > 2 and text(reply[2]) == "1"
        open_invocation = text(reply[3]) if len(reply) > 3 else ""
        return ClaimReply(
            "ok", token=int(reply[1]), took_over=took_over, open_invocation=open_invocation or None
        )
    if status == "held":
        return ClaimReply("held", held_ms=int(float(reply[1])))
    if status == "lost":
        return ClaimReply("lost")
    if status == "missing":
        return ClaimReply("missing")
    raise ValueError(f"unexpected claim reply {status!r}")


def create_call(
    keys: SessionKeys, prepared: PreparedCreate, *, nonce: str, ttl_ms: int, ack_ms: int
) -> Call:
    """Arguments of ``create.lua``: store ``prepared`` as the session of ``keys``.

    With its states, its creation state and the events an import creates it with.
    """
    signature = SIGNATURES["create"]
    scopes = (prepared.session_state, prepared.app_state, prepared.user_state)
    counts, pairs = _scope_args(scopes)
    events = prepared.events
    args = {
        "nonce": nonce,
        "ttl_ms": ttl_ms,
        **_identity(keys),
        **counts,
        "event_count": len(events),
        "creation": creation_text(prepared.creation_state),
        "ack_ms": ack_ms,
    }
    triples = [item for e in events for item in (e.id, repr(e.timestamp), e.event_json)]
    return signature.build(_session_keys(keys, signature.keys), args, [*pairs, *triples])


def creation_text(creation: Mapping[str, Any] | None) -> str:
    """The meta field ``init``: the encoded creation state as JSON text (``''``: unknown)."""
    return "" if creation is None else codec.dumps(dict(creation))


def scope_call(state_key: str, state: Mapping[str, Any]) -> Call:
    """Arguments of ``scope.lua``: the app or user state hash and the encoded keys to merge."""
    return SIGNATURES["scope"].build({"state": state_key}, {}, json_pairs(state))


def get_call(keys: SessionKeys, *, count: int, after: str, since: int | None = None) -> Call:
    """Arguments of ``get.lua``.

    ``count`` recent events (-1 all), ``after`` ('' none), or only the events after revision
    ``since`` (then count and after are ignored).
    """
    signature = SIGNATURES["get"]
    args = {"count": count, "after": after, "since": -1 if since is None else since}
    return signature.build(_session_keys(keys, signature.keys), args)


def delete_call(keys: SessionKeys, *, idle_before: float | None = None, ack_ms: int = 0) -> Call:
    """Arguments of ``delete.lua``: unconditional, or only if idle before ``idle_before``."""
    signature = SIGNATURES["delete"]
    args = {
        **_identity(keys),
        "idle_before": "" if idle_before is None else repr(idle_before),
        "ack_ms": ack_ms,
    }
    return signature.build(_session_keys(keys, signature.keys), args)


def list_call(app: AppKeys, user_id: str | None, *, count: int, after_score: float | None) -> Call:
    """Arguments of ``list.lua``: ``count`` entries (-1 all) at or below ``after_score``."""
    index = app.app_index if user_id is None else app.user_index(user_id)
    args = {
        "base": app.base,
        "user": "" if user_id is None else escape(user_id),
        "count": count,
        "after_score": "" if after_score is None else repr(after_score),
    }
    return SIGNATURES["list"].build({"index": index, "app_state": app.app_state}, args)


# --- replies ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class AppendReply:
    """What ``append.lua`` did.

    Attributes:
        status: ``ok`` (stored), ``dup`` (the id was stored already), ``missing``,
            ``recreated`` (another incarnation of the session), ``lost`` (the caller's claim
            was taken over), ``busy`` (another claim's lease runs), ``stale``.
        sequence: The event's sequence (``ok`` and ``dup``); ms the other claim still holds
            (``busy``).
        mtime: The session's update time after the script (``ok`` and ``dup``).
        stored_json: The stored event (``dup`` only).
    """

    status: Literal["ok", "dup", "missing", "recreated", "lost", "busy", "stale"]
    sequence: int = 0
    mtime: float = 0.0
    stored_json: str | None = None


_PLAIN_APPEND_REPLIES: dict[str, AppendReply] = {
    "missing": AppendReply("missing"),
    "recreated": AppendReply("recreated"),
    "lost": AppendReply("lost"),
    "stale": AppendReply("stale"),
}


def parse_append(reply: Sequence[Any]) -> AppendReply:
    """Parse the reply of ``append.lua``."""
    status = text(reply[0])
    if status == "ok":
        return AppendReply("ok", int(reply[1]), float(reply[2]))
    if status == "dup":
        return AppendReply("dup", int(reply[1]), float(reply[3]), text(reply[2]))
    if status == "busy":
        return AppendReply("busy", int(float(reply[1])))
    if status in _PLAIN_APPEND_REPLIES:
        return _PLAIN_APPEND_REPLIES[status]
    raise ValueError(f"unexpected append reply {status!r}")


@dataclasses.dataclass(frozen=True)
class GetReply:
    """A session snapshot from ``get.lua`` or ``create.lua``.

    Attributes:
        meta: ``[rev, ctime, mtime, nonce]`` (``nonce``: the create call's, the session's
            identity).
        states: The session, app and user state as flat ``[field, json, …]`` lists.
        events: Stored event JSON, oldest first.
    """

    meta: Sequence[Any]
    states: tuple[Sequence[Any], Sequence[Any], Sequence[Any]]
    events: Sequence[Any]


def parse_get(reply: Any) -> GetReply | None:
    """Parse the reply of ``get.lua`` (None: the session does not exist)."""
    if not reply:
        return None
    return GetReply(reply[0], (reply[1], reply[2], reply[3]), reply[4])


@dataclasses.dataclass(frozen=True)
class StartReply:
    """What ``start.lua`` did.

    Attributes:
        status: ``ok`` (claimed, read, the message committed or found), ``busy`` (held, or
            left unreleased: nothing written), ``missing``.
        open_invocation: The session's open invocation after the claim ('' none).
        read: The session as read (``ok``).
        message: The message's commit (``ok`` or ``dup``), None when none was sent.
    """

    status: Literal["ok", "busy", "missing"]
    open_invocation: str = ""
    read: GetReply | None = None
    message: AppendReply | None = None


def parse_start(reply: Sequence[Any]) -> StartReply:
    """Parse the reply of ``start.lua``."""
    status = text(reply[0])
    if status == "missing":
        return StartReply("missing")
    if status == "busy":
        return StartReply("busy")
    if status != "ok":
        raise ValueError(f"unexpected start reply {status!r}")
    read = parse_get(reply[2])
    commit = parse_append(reply[3]) if reply[3] else None
    return StartReply("ok", text(reply[1]), read, commit)


CreateReply = GetReply | None


def parse_create(reply: Sequence[Any]) -> CreateReply:
    """Parse the reply of ``create.lua`` (None: the session exists already)."""
    if text(reply[0]) == "exists":
        return None
    return GetReply(reply[1], (reply[2], reply[3], reply[4]), [])


@dataclasses.dataclass(frozen=True)
class ListedSession:
    """A live session of a ``list.lua`` page: its revision, identity and state pairs."""

    revision: int
    nonce: str
    state: Sequence[Any]


@dataclasses.dataclass(frozen=True)
class ListReply:
    """A page from ``list.lua``.

    Attributes:
        app_state: The app state pairs.
        user_states: Each listed user's state pairs, by escaped user id.
        entries: Every index entry read, ``(member, score)``, newest first (ties included).
        sessions: The live sessions among them, by member (expired ones were dropped).
    """

    app_state: Sequence[Any]
    user_states: dict[str, Sequence[Any]]
    entries: list[tuple[str, float]]
    sessions: dict[str, ListedSession]


def parse_list(reply: Sequence[Any]) -> ListReply:
    """Parse the reply of ``list.lua``."""
    app_state, users, entries, sessions = reply
    return ListReply(
        app_state,
        {text(users[i]): users[i + 1] for i in range(0, len(users), 2)},
        [(text(entries[i]), float(entries[i + 1])) for i in range(0, len(entries), 2)],
        {
            text(sessions[i]): ListedSession(
                int(sessions[i + 1]), text(sessions[i + 2]), sessions[i + 3]
            )
            for i in range(0, len(sessions), 4)
        },
    )
