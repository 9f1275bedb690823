"""RedisSessionService: durable sessions on Redis, one Lua script per write.

Key layout (``P`` is ``key_prefix``, ``A``/``U``/``S`` the app, user and session ids with
``%``, ``:``, ``{`` and ``}`` percent-encoded; every value is codec JSON text):

==========================  ===========  ====================================================
key                         type         content
==========================  ===========  ====================================================
``P{A}:session:U:S``        hash         ``rev``, ``ctime``, ``mtime`` (server time, seconds
                                         with microseconds), ``nonce`` of the create call,
                                         the claim (``ctok``, ``cuntil``, ``ctook``), the
                                         open invocation (``inv``, ``invat``) and ``init``, the
                                         creation state as one JSON object (read only by
                                         fork, rewind and export; absent: unknown, a
                                         session created before it was kept)
``P{A}:state:U:S``          hash         session state, one field per key
``P{A}:events:U:S``         list         the events as stored JSON, one entry each; entry
                                         ``i`` holds sequence ``i + 1``
``P{A}:eventids:U:S``       hash         event id → sequence (idempotent re-append)
``P{A}:eventtimes:U:S``     sorted set   sequence scored by event timestamp
``P{A}:app``                hash         ``app:`` state, one field per key (no prefix)
``P{A}:user:U``             hash         ``user:`` state, one field per key (no prefix)
``P{A}:sessions:U``         sorted set   the user's session ids by update time
``P{A}:sessions``           sorted set   ``U:S`` of every session of the app by update time
``P{A}:open``               sorted set   ``U:S`` of the sessions with an open invocation
                                         (scores 0: a user's are one lexicographic range)
``P{A}:ack``                string       a marker with a short TTL, set only with
                                         ``wait_replicas`` by a write that found its work
                                         done (see ``_replicas.py``)
==========================  ===========  ====================================================

Why one field per state key (and not one JSON blob per scope): a delta is applied with
``HSET``, so two writers of distinct keys never overwrite each other, the Lua scripts never
decode or re-encode a value (Lua's cjson would mangle big integers and floats), and merging is
shallow by construction, as the contract says.

**Writes** are one Lua script each (``lua/*.lua``, run by SHA, reloaded on ``NOSCRIPT``), so
they are atomic: ``append`` checks the event id (idempotency), that the session exists and
that its revision is the caller's, then pushes the event, applies the session/app/user deltas,
bumps the revision and the update time, updates both listing indexes and refreshes the TTL.
Every check comes before the first write, so a stale writer writes nothing. ``create`` and
``delete`` are scripts too; delete removes every key of the session and its listing entries.
Every write is safe to retry after a lost reply (append by event id, create by a per-call
nonce, delete by nature), so the client the service builds from a URL retries a command whose
connection dropped or timed out up to 3 times (10 ms to 0.5 s apart, with jitter) before it
raises ``BackendUnavailableError``; a client you pass keeps its own retry policy.

**Times**: ``update_time`` is the Redis server's clock (``TIME`` inside the script), never a
client's, kept monotonic per session, so processes with skewed clocks still list sessions in
commit order.

**Reads** never use ``KEYS`` or ``SCAN``. ``get_session`` is one read-only script (one
consistent snapshot): ``num_recent_events=k`` costs O(k) (``LRANGE -k -1``);
``after_timestamp`` costs O(log n + m) to find the m matching events in the timestamp index
plus one ``LRANGE`` over the span from the oldest match to the newest (about m when timestamps
grow with history, up to n when an old event carries a late timestamp). ``list_sessions``
reads a page of the user's (or the app's) sorted set, newest first, with an opaque keyset token
(update time, member), then loads those sessions in one ``MULTI``.

**Redis Cluster**: a script may only touch keys of one slot, and an append writes the session,
the user and the app keys together. So every key of an app carries the hash tag ``{A}``: an
app's data lives on one slot (one shard). Apps spread over the cluster; a single app does not.
That is the price of atomic ``app:`` writes.

**TTL** (``ttl_seconds``): the session's own five keys expire together (``PEXPIREAT`` to one
deadline) when the session was not written for that long; every write refreshes it. A held
session is never idle: taking and renewing a claim keep the keys at least until the lease
ends, and the release sets them back to a TTL after the last write. App and
user state and the listing indexes never expire; a listing drops the entries of sessions that
expired when it meets them.
"""

from __future__ import annotations

import asyncio
import math
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import redis.asyncio as redis_asyncio
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from adk_runtime import codec
from adk_runtime.errors import (
    RECREATED_SESSION_MESSAGE,
    AlreadyExistsError,
    ClaimLostError,
    ConfigurationError,
    SessionBusyError,
    SessionNotFoundError,
    StaleSessionError,
    redact_url,
)
from adk_runtime.events import event_from_stored
from adk_runtime.sessions._cache import SessionCache
from adk_runtime.sessions.base import (
    AppendResult,
    BaseSessionService,
    ClaimAttempt,
    GetSessionConfig,
    ListQuery,
    PreparedAppend,
    PreparedCreate,
    SessionTail,
)
from adk_runtime.sessions.claims import new_claim_token
from adk_runtime.sessions.fork import PreparedFork
from adk_runtime.sessions.invocations import InvocationStatus, OpenInvocation
from adk_runtime.sessions.redis import _batching, _clients, _listing, _replicas
from adk_runtime.sessions.redis import _protocol as protocol
from adk_runtime.sessions.redis._errors import translate
from adk_runtime.sessions.redis._keys import (
    AppKeys,
    SessionKeys,
    app_index_member,
    check_prefix,
    parse_app_index_member,
)
from adk_runtime.sessions.redis._scripts import Scripts
from adk_runtime.sessions.redis._values import decode_mapping, decode_pairs, text
from adk_runtime.sessions.retention import IdleQuery, IdleSession, check_ttl_seconds
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import merge_state

__all__ = ["RedisSessionService"]

_T = TypeVar("_T")
_STATUSES: dict[str, InvocationStatus] = {
    "running": "running",
    "failed": "failed",
    "crashed": "crashed",
}
_URL_OPTIONS = (
    "key_prefix",
    "ttl_seconds",
    "max_connections",
    "pool_timeout",
    "cache_bytes",
    "wait_replicas",
    "wait_timeout_ms",
)


class RedisSessionService(BaseSessionService):
    """Sessions on Redis: atomic per-event appends, cheap reads, optional idle expiry.

    The layout and its costs are described in the module docstring. Needs Redis 6.2 or later.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        client: redis_asyncio.Redis | None = None,
        key_prefix: str = "adk:",
        ttl_seconds: float | None = None,
        max_connections: int = 50,
        pool_timeout: float = 30.0,
        cache_bytes: int | None = None,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 1000,
    ) -> None:
        """Create the service.

        Args:
            url: ``redis://[[user]:password@]host[:port][/db]``, ``rediss://…`` (TLS),
                ``unix:///path.sock``, or ``redis+cluster://host:port`` /
                ``rediss+cluster://…`` (any node of a Redis Cluster); the service then owns
                (and closes) its client.
            client: A ``redis.asyncio.Redis`` or ``RedisCluster`` to use instead of a URL
                (not closed by :meth:`close`).
            key_prefix: Start of every key this service writes (no ``{`` or ``}``).
            ttl_seconds: Expire a session's keys after this many seconds without a write;
                ``None`` keeps sessions forever. App and user state never expire.
            max_connections: Connections the service's own client keeps at most; a call
                beyond them waits for a free one (never fails for lack of one).
            pool_timeout: Seconds a call waits for a free connection before it raises
                ``BackendUnavailableError``.
            cache_bytes: Keep recently read conversations (up to this many bytes of event
                JSON) so a full ``get_session`` fetches only the events after the cached
                revision (see :mod:`adk_runtime.sessions._cache`). None: no cache.
            wait_replicas: After every write, wait until this many replicas hold it (Redis
                ``WAIT``, same round trip); 0 (the default) acknowledges a write once the
                primary has it, and a failover can lose the last writes.
            wait_timeout_ms: How long a write waits for its replicas before it fails with
                ``BackendUnavailableError`` (the write is on the primary; retrying is safe).

        Raises:
            ConfigurationError: Neither or both of ``url`` and ``client`` were given, the URL
                is malformed, or an option is invalid.
        """
        if (url is None) == (client is None):
            raise ConfigurationError("Give RedisSessionService either a url or a client.")
        self._prefix = check_prefix(key_prefix)
        self._ttl_ms = _ttl_ms(ttl_seconds)
        if client is None:
            assert url is not None
            self._where = redact_url(url)
            pool = _clients.PoolOptions(
                _positive_int("max_connections", max_connections), pool_timeout
            )
            self._client = _clients.build_client(url, self._where, pool)
            self._owns_client = True
        else:
            self._where = _describe(client)
            self._client = client
            self._owns_client = False
            pool = _clients.PoolOptions(max_connections, pool_timeout)
        self._url = url
        self._pool_options = pool
        self._cluster = isinstance(self._client, RedisCluster)
        self._wait_replicas = _count("wait_replicas", wait_replicas)
        self._wait_timeout_ms = _positive_int("wait_timeout_ms", wait_timeout_ms)
        # Waiting for replicas: a write script that finds its work done (a retry) sets a marker,
        # so the WAIT after it proves the replicas hold what it reports (see _replicas.py).
        self._ack_ms = protocol.ACK_MARKER_MS if self._wait_replicas else 0
        # One server: scripts called at once share round trips, on a few connections, first
        # come first served (see _batching). Otherwise calls beyond the pool wait in line:
        # redis-py's blocking pool alone wakes its waiters in no order (some waited a second
        # at 256 callers), and a cluster's per-node pools fail when full.
        self._batching = not self._cluster and not self._wait_replicas
        self._lanes = min(_batching.LANES, pool.max_connections)
        self._batcher: _batching.ScriptBatcher | None = None
        needs_gate = self._cluster or (self._owns_client and not self._batching)
        self._gate = _clients.Gate(pool) if needs_gate else None
        self._scripts = Scripts.register(self._client)
        self._replicas = self._replica_wait()
        self._apps: dict[str, AppKeys] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        if cache_bytes is not None:
            self._session_cache = SessionCache(cache_bytes)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisSessionService:
        """Build the service for a ``redis://`` or ``rediss://`` URL.

        ``key_prefix``, ``ttl_seconds``, ``max_connections`` and ``pool_timeout`` may be
        given as query parameters (``redis://host/0?key_prefix=myapp:&ttl_seconds=86400``);
        keyword arguments win.
        """
        try:
            parts = urlsplit(url)
        except ValueError:
            raise ConfigurationError(f"{redact_url(url)!r} is not a valid Redis URL.") from None
        query = parse_qsl(parts.query, keep_blank_values=True)
        options: dict[str, Any] = {key: value for key, value in query if key in _URL_OPTIONS}
        rest = urlencode([(key, value) for key, value in query if key not in _URL_OPTIONS])
        parsers = {
            "ttl_seconds": float,
            "pool_timeout": float,
            "max_connections": int,
            "cache_bytes": int,
            "wait_replicas": int,
            "wait_timeout_ms": int,
        }
        for name, parse in parsers.items():
            if name in options:
                options[name] = _parse_number(name, options[name], parse)
        taken = bool(options)
        options.update(kwargs)
        if not taken:
            return cls(url, **options)  # nothing taken out: the URL goes on as given
        return cls(urlunsplit(parts._replace(query=rest)), **options)

    @property
    def db_system_name(self) -> str:
        """``redis`` (OpenTelemetry's ``db.system.name``; a cluster is Redis too)."""
        return "redis"

    async def close(self) -> None:
        """Close the client if this service created it (and the node clients of ``wait_replicas``).

        Connections opened on another event loop that has finished (``Runner.run`` runs each
        call on a loop of its own) are dropped, not closed: closing them needs their loop.
        """
        self._follow_loop()
        if self._replicas is not None:
            await self._replicas.aclose()
        if self._owns_client:
            await self._client.aclose()

    def _follow_loop(self) -> None:
        # redis-py connections belong to the loop that opened them. When the service moves to
        # another loop, the pooled connections of the old one are dropped and new ones open.
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            if self._loop is not None and self._owns_client:
                if self._cluster:  # a cluster client has a pool per node: start afresh
                    assert self._url is not None
                    self._client = _clients.build_client(self._url, self._where, self._pool_options)
                    self._scripts = Scripts.register(self._client)
                else:
                    pool: Any = self._client.connection_pool  # reset() is untyped in redis-py
                    pool.reset()
            if self._loop is not None:  # node clients of the finished loop are dropped
                self._replicas = self._replica_wait()
            if self._gate is not None:
                self._gate.reset()
            if self._batching:  # its lanes and line belong to the loop
                self._batcher = _batching.ScriptBatcher(self._client, self._lanes)
            self._loop = loop

    async def _call(self, op: Callable[[Scripts], Awaitable[_T]]) -> _T:
        # The call is built only after _follow_loop, on the client of the running loop (a
        # cluster client is replaced when the loop changes).
        self._follow_loop()
        try:
            if self._gate is not None:
                await _clients.ready(self._client)
                return await self._gate.run(op(self._scripts), self._where)
            return await op(self._scripts)
        except (redis_asyncio.RedisError, OSError) as exc:
            raise translate(exc, self._where) from exc

    def _script(self, script: AsyncScript, keys: list[str], args: list[Any]) -> Awaitable[Any]:
        """Run a script (batched with the calls made at the same moment on one server)."""
        if self._batcher is not None:
            return self._batcher.call(script, keys, args)
        return script(keys, args)

    def _write(self, script: AsyncScript, keys: list[str], args: list[Any]) -> Awaitable[Any]:
        """A write script, followed by ``WAIT`` for the replicas when ``wait_replicas`` asks."""
        if self._replicas is None:
            return self._script(script, keys, args)
        return self._replicas.write(script, keys, args)

    def _replica_wait(self) -> _replicas.ReplicaWait | None:
        if not self._wait_replicas:
            return None
        return _replicas.ReplicaWait(
            self._client, self._wait_replicas, self._wait_timeout_ms, self._pool_options
        )

    def _keys(self, app_name: str, user_id: str, session_id: str) -> SessionKeys:
        return self._app_keys(app_name).session(user_id, session_id)

    def _app_keys(self, app_name: str) -> AppKeys:
        """The app's keys (kept for a few apps: their escaped prefix is built once)."""
        keys = self._apps.get(app_name)
        if keys is None:
            if len(self._apps) >= 64:
                self._apps.clear()
            keys = self._apps[app_name] = AppKeys(self._prefix, app_name)
        return keys

    async def _create_session(
        self, app_name: str, user_id: str, prepared: PreparedCreate
    ) -> Session:
        keys = self._keys(app_name, user_id, prepared.session_id)
        scopes = (prepared.session_state, prepared.app_state, prepared.user_state)
        script_keys, args = protocol.create_call(
            keys,
            nonce=uuid.uuid4().hex,
            ttl_ms=self._ttl_ms,
            scopes=scopes,
            events=[(e.id, e.timestamp, e.event_json) for e in prepared.events],
            creation=prepared.creation_state,
            ack_ms=self._ack_ms,
        )
        reply = protocol.parse_create(
            await self._call(lambda s: self._write(s.create, script_keys, args))
        )
        if reply is None:
            raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")
        return _session(keys, reply)

    async def _merge_scope_state(
        self, app_name: str, user_id: str | None, state: dict[str, Any]
    ) -> None:
        app = self._app_keys(app_name)
        key = app.app_state if user_id is None else app.user_state(user_id)
        script_keys, args = protocol.scope_call(key, state)
        await self._call(lambda s: self._write(s.scope, script_keys, args))

    async def _get_session(
        self, app_name: str, user_id: str, session_id: str, config: GetSessionConfig | None
    ) -> Session | None:
        count, after = _event_window(config)
        keys = self._keys(app_name, user_id, session_id)
        script_keys, args = protocol.get_call(keys, count=count, after=after)
        stored = await self._call(lambda s: self._script(s.get, script_keys, args))
        reply = protocol.parse_get(stored)
        return None if reply is None else _session(keys, reply)

    async def _get_session_tail(
        self, app_name: str, user_id: str, session_id: str, after_revision: int | None
    ) -> SessionTail | None:
        keys = self._keys(app_name, user_id, session_id)
        script_keys, args = protocol.get_call(keys, count=-1, after="", since=after_revision)
        stored = await self._call(lambda s: self._script(s.get, script_keys, args))
        reply = protocol.parse_get(stored)
        if reply is None:
            return None
        size = sum(len(item) for item in reply.events)
        session = _session(keys, reply)
        return SessionTail(session, session._incarnation or "", size)

    async def _list_sessions(self, query: ListQuery) -> list[Session]:
        app = self._app_keys(query.app_name)
        lister = _listing.Lister(app, query.user_id, self._call)
        return await lister.page(query.limit, query.after)

    async def _get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        key = self._app_keys(app_name).user_state(user_id)
        stored: Mapping[Any, Any] = await self._call(lambda _: self._client.hgetall(key))
        return decode_mapping(stored)

    async def _stored_payloads(self, app_name: str, user_id: str, session_id: str) -> list[str]:
        events_key = self._keys(app_name, user_id, session_id).events
        found = await self._call(lambda _: self._client.lrange(events_key, 0, -1))
        return [text(item) for item in found]

    async def _delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        script_keys, args = protocol.delete_call(
            self._keys(app_name, user_id, session_id), ack_ms=self._ack_ms
        )
        await self._call(lambda s: self._write(s.delete, script_keys, args))

    async def _idle_sessions(self, query: IdleQuery) -> list[IdleSession]:
        app_name, user_id, before, after = query.app_name, query.user_id, query.before, query.after
        limit = query.limit
        # The listing index, ascending by score (update time), ties in member order (bytewise),
        # the order list.lua pages in too. From the cursor's score: every entry tying with it
        # (ZCOUNT) plus `limit` more, then the ones at or before the cursor are dropped.
        app = self._app_keys(app_name)
        index = app.app_index if user_id is None else app.user_index(user_id)
        low = "-inf" if after is None else repr(after.last_update_time)
        ties = (
            0 if after is None else await self._call(lambda _: self._client.zcount(index, low, low))
        )
        entries = await self._call(
            lambda _: self._client.zrange(
                index,
                low,
                f"({before!r}",
                byscore=True,
                offset=0,
                num=limit + ties,
                withscores=True,
            )
        )
        found: list[IdleSession] = []
        for raw, score in entries:
            member = text(raw)
            if after is not None and (float(score), member) <= (
                after.last_update_time,
                _member(after, user_id),
            ):
                continue
            owner, session_id = (
                (user_id, member) if user_id is not None else parse_app_index_member(member)
            )
            found.append(IdleSession(owner, session_id, float(score)))
        return found[:limit]

    async def _delete_if_idle(self, app_name: str, idle: IdleSession, before: float) -> bool:
        keys = self._keys(app_name, idle.user_id, idle.session_id)
        script_keys, args = protocol.delete_call(keys, idle_before=before, ack_ms=self._ack_ms)
        deleted = await self._call(lambda s: self._write(s.delete, script_keys, args))
        return int(deleted) == 1

    async def _append_event(self, session: Session, prepared: PreparedAppend) -> AppendResult:
        timestamp = prepared.event.timestamp
        script_keys, args = protocol.append_call(
            self._keys(session.app_name, session.user_id, session.id),
            event_id=prepared.event.id,
            expected_revision=prepared.expected_revision,
            event_json=prepared.event_json,
            timestamp=timestamp,
            ttl_ms=self._ttl_ms,
            scopes=(prepared.session_delta, prepared.app_delta, prepared.user_delta),
            incarnation=prepared.incarnation,
            fence=prepared.fence,
            ack_ms=self._ack_ms,
        )
        reply = protocol.parse_append(
            await self._call(lambda s: self._write(s.append, script_keys, args))
        )
        if reply.status == "ok":
            return AppendResult(prepared.event, reply.sequence, reply.mtime)
        if reply.status == "dup":
            assert reply.stored_json is not None
            stored = event_from_stored(reply.stored_json, session.id, reply.sequence - 1)
            return AppendResult(stored, reply.sequence, reply.mtime, already_stored=True)
        if reply.status == "missing":
            raise SessionNotFoundError(f"Session {session.id!r} does not exist.")
        if reply.status == "recreated":
            raise StaleSessionError(RECREATED_SESSION_MESSAGE)
        if reply.status == "lost":
            raise ClaimLostError(session.id)
        if reply.status == "busy":
            raise SessionBusyError(session.id, reply.sequence / 1000)
        raise StaleSessionError()

    async def _creation_state(
        self, key: tuple[str, str, str], incarnation: str | None
    ) -> dict[str, Any] | None:
        meta = self._keys(*key).meta
        nonce, stored = await self._call(lambda _: self._client.hmget(meta, "nonce", "init"))
        if stored is None or (incarnation is not None and text(nonce) != incarnation):
            return None
        return dict(codec.loads(stored))

    async def _fork_session(self, key: tuple[str, str, str], prepared: PreparedFork) -> None:
        script_keys, args = protocol.fork_call(
            self._keys(*key),
            self._keys(key[0], key[1], prepared.session_id),
            source_nonce=prepared.incarnation,
            copied=prepared.sequence,
            event_ids=prepared.event_ids,
            ttl_ms=self._ttl_ms,
            nonce=uuid.uuid4().hex,
            state=prepared.session_state,
            creation=prepared.creation_state,
            ack_ms=self._ack_ms,
        )
        reply = text((await self._call(lambda s: self._write(s.fork, script_keys, args)))[0])
        if reply == "missing":
            raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
        if reply == "exists":
            raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")

    async def _claim_step(
        self,
        key: tuple[str, str, str],
        op: protocol.ClaimOp,
        token: int,
        lease_seconds: float,
        mark: str | None = None,
    ) -> protocol.ClaimReply:
        script_keys, args = protocol.claim_call(
            self._keys(*key),
            op,
            token=token,
            lease_ms=math.ceil(lease_seconds * 1000),
            mark=mark,
            ttl_ms=self._ttl_ms,
            ack_ms=self._ack_ms,
        )
        reply = protocol.parse_claim(
            await self._call(lambda s: self._write(s.claim, script_keys, args))
        )
        if reply.status == "missing" and op == "acquire":
            raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
        return reply

    async def _try_claim(
        self,
        key: tuple[str, str, str],
        lease_seconds: float,
        mark: str | None = None,
        *,
        token: int | None = None,
    ) -> ClaimAttempt:
        token = new_claim_token() if token is None else token
        reply = await self._claim_step(key, "acquire", token, lease_seconds, mark)
        if reply.status == "ok":
            return ClaimAttempt(
                reply.token, took_over=reply.took_over, open_invocation=reply.open_invocation
            )
        return ClaimAttempt(None, reply.held_ms / 1000)

    async def _extend_claim(
        self, key: tuple[str, str, str], token: int, lease_seconds: float, mark: str | None = None
    ) -> bool:
        return (await self._claim_step(key, "extend", token, lease_seconds, mark)).status == "ok"

    async def _release_claim(
        self, key: tuple[str, str, str], token: int, finished: bool = False
    ) -> None:
        await self._claim_step(key, "finish" if finished else "release", token, 0.0)

    async def _open_invocations(
        self, app_name: str, user_id: str | None, session_id: str | None
    ) -> list[OpenInvocation]:
        app = self._app_keys(app_name)
        script_keys, args = protocol.open_call(app, user_id, session_id)
        reply = await self._call(lambda s: self._script(s.open, script_keys, args))
        found = []
        for i in range(0, len(reply), 4):
            owner, sid = parse_app_index_member(text(reply[i]))
            status = _STATUSES[text(reply[i + 3])]
            found.append(
                OpenInvocation(
                    app_name, owner, sid, text(reply[i + 1]), int(reply[i + 2]) / 1000, status
                )
            )
        return found


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{name} must be a whole number (0 or more).")
    return value


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{name} must be a positive integer.")
    return value


def _describe(client: Any) -> str:
    kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", {})
    if "path" in kwargs:
        return f"unix://{kwargs['path']}"
    return f"redis://{kwargs.get('host', '?')}:{kwargs.get('port', '?')}/{kwargs.get('db', 0)}"


def _parse_number(name: str, text: str, parse: Callable[[str], Any]) -> Any:
    try:
        return parse(text)
    except ValueError:
        raise ConfigurationError(f"{name}={text!r} is not a number.") from None


def _ttl_ms(ttl_seconds: float | None) -> int:
    ttl = check_ttl_seconds(ttl_seconds)
    return 0 if ttl is None else round(ttl * 1000)


def _event_window(config: GetSessionConfig | None) -> tuple[int, str]:
    """Return the get script's ``(count, after)`` arguments (-1 = every event, '' = no bound)."""
    if config is None:
        return -1, ""
    count = -1 if config.num_recent_events is None else config.num_recent_events
    after = config.after_timestamp
    if after is None:
        return count, ""
    if math.isnan(after):
        return 0, ""  # no timestamp is >= nan
    return count, repr(after)


def _session(keys: SessionKeys, reply: protocol.GetReply) -> Session:
    """Build a Session from a script's snapshot (``meta`` is ``[rev, ctime, mtime]``)."""
    session_state, app_state, user_state = (decode_pairs(pairs) for pairs in reply.states)
    session = Session(
        id=keys.session_id,
        app_name=keys.app.app_name,
        user_id=keys.user_id,
        state=merge_state(session_state, app_state, user_state),
        events=[event_from_stored(item, keys.session_id, i) for i, item in enumerate(reply.events)],
        last_update_time=float(reply.meta[2]),
        revision=int(reply.meta[0]),
    )
    session._incarnation = text(reply.meta[3]) if reply.meta[3] is not None else None
    return session


def _member(idle: IdleSession, user_id: str | None) -> str:
    """The listing-index member of ``idle`` (the user's index, or the app's when no user)."""
    return (
        idle.session_id if user_id is not None else app_index_member(idle.user_id, idle.session_id)
    )
