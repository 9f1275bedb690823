"""RedisSessionService: durable sessions on Redis, one Lua script per write.

The service is the contract's storage steps, each a call of one script or command; the rest
lives by concern:

=======================  ===============================================================
module                   concern
=======================  ===============================================================
:mod:`._keys`            the key layout (every key of an app on one Cluster slot)
:mod:`._options`         the options, checked, and those a URL's query sets
:mod:`._link`            the client, batching, the cluster gate, ``WAIT`` for replicas,
                         retries, event loops
:mod:`._scripts`         the Lua scripts (``lua/``): signatures, prelude, assembly
:mod:`._protocol`        each script's argument builder and reply parser
:mod:`._listing`         listing pages and the prune walk (the sorted-set indexes)
:mod:`._claims`          claims and open invocations
:mod:`._errors`          redis-py errors and script refusals as adk_runtime errors
=======================  ===============================================================

**Writes** are one Lua script each (run by SHA, reloaded on ``NOSCRIPT``), so they are
atomic: ``append`` checks the event id (idempotency), that the session exists and that its
revision is the caller's, then pushes the event, applies the session/app/user deltas, bumps
the revision and the update time, updates both listing indexes and refreshes the TTL. Every
check comes before the first write, so a stale writer writes nothing. ``create`` and
``delete`` are scripts too; delete removes every key of the session and its listing entries.
Every write is safe to retry after a lost reply (append by event id, create by a per-call
nonce, delete by nature; see :mod:`._link` for the client's retries).

**Times**: ``update_time`` is the Redis server's clock (``TIME`` inside the script), never a
client's, kept monotonic per session, so processes with skewed clocks still list sessions in
commit order.

**Reads** never use ``KEYS`` or ``SCAN``. ``get_session`` is one read-only script (one
consistent snapshot): ``num_recent_events=k`` costs O(k), ``after_timestamp`` O(log n + m)
plus the span of the matches (``lua/get.lua``). ``list_sessions`` reads a page of the user's
(or the app's) sorted set, newest first (:mod:`._listing`).

**Redis Cluster**: every key of an app carries its hash tag, so an app's data lives on one
slot (one shard), as a script touching the session, user and app keys at once needs
(:mod:`._keys`).

**TTL** (``ttl_seconds``): the session's own five keys expire together (``PEXPIREAT`` to one
deadline) when the session was not written for that long; every write refreshes it. A held
session is never idle: taking and renewing a claim keep the keys at least until the lease
ends, and the release sets them back to a TTL after the last write. App and user state and the
listing indexes never expire; a listing drops the entries of sessions that expired when it
meets them.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import redis.asyncio as redis_asyncio

from adk_runtime import codec
from adk_runtime.errors import AlreadyExistsError, ConfigurationError, SessionNotFoundError
from adk_runtime.events import event_from_stored
from adk_runtime.sessions._cache import SessionCache
from adk_runtime.sessions._prepare import ReadPlan
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
from adk_runtime.sessions.claims import ClaimedStart, SessionKey, new_claim_token
from adk_runtime.sessions.fork import PreparedFork
from adk_runtime.sessions.invocations import OpenInvocation
from adk_runtime.sessions.redis import _claims, _clients, _listing, _options
from adk_runtime.sessions.redis import _protocol as protocol
from adk_runtime.sessions.redis._errors import append_refused
from adk_runtime.sessions.redis._keys import KeySpace, SessionKeys
from adk_runtime.sessions.redis._link import Link
from adk_runtime.sessions.redis._snapshots import event_window, session_of
from adk_runtime.sessions.redis._values import decode_mapping, text
from adk_runtime.sessions.retention import IdleQuery, IdleSession
from adk_runtime.sessions.session import Session

__all__ = ["RedisSessionService"]


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
        self._space = KeySpace(key_prefix)
        self._prefix = self._space.prefix
        self._ttl_ms = _options.ttl_ms(ttl_seconds)
        self._url = url
        pool = _clients.PoolOptions(max_connections, pool_timeout)
        self._link = Link.open(url, client, pool, wait_replicas, wait_timeout_ms)
        if cache_bytes is not None:
            self._session_cache = SessionCache(cache_bytes)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> RedisSessionService:
        """Build the service for a ``redis://`` or ``rediss://`` URL.

        ``key_prefix``, ``ttl_seconds``, ``max_connections``, ``pool_timeout`` and the other
        options may be given as query parameters
        (``redis://host/0?key_prefix=myapp:&ttl_seconds=86400``); keyword arguments win.
        """
        url, options = _options.split_url(url)
        return cls(url, **{**options, **kwargs})

    @property
    def db_system_name(self) -> str:
        """``redis`` (OpenTelemetry's ``db.system.name``; a cluster is Redis too)."""
        return "redis"

    async def close(self) -> None:
        """Close the client if this service created it (and the node clients of ``wait_replicas``).

        Connections opened on another event loop that has finished (``Runner.run`` runs each
        call on a loop of its own) are dropped, not closed: closing them needs their loop.
        """
        await self._link.close()

    def _keys(self, app_name: str, user_id: str, session_id: str) -> SessionKeys:
        return self._space.session(app_name, user_id, session_id)

    async def _create_session(
        self, app_name: str, user_id: str, prepared: PreparedCreate
    ) -> Session:
        keys = self._keys(app_name, user_id, prepared.session_id)
        nonce, ttl_ms, ack_ms = uuid.uuid4().hex, self._ttl_ms, self._link.ack_ms
        call = protocol.create_call(keys, prepared, nonce=nonce, ttl_ms=ttl_ms, ack_ms=ack_ms)
        reply = protocol.parse_create(await self._link.write("create", call))
        if reply is None:
            raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")
        return session_of(keys, reply)

    async def _merge_scope_state(
        self, app_name: str, user_id: str | None, state: dict[str, Any]
    ) -> None:
        app = self._space.app(app_name)
        key = app.app_state if user_id is None else app.user_state(user_id)
        await self._link.write("scope", protocol.scope_call(key, state))

    async def _get_session(
        self, app_name: str, user_id: str, session_id: str, config: GetSessionConfig | None
    ) -> Session | None:
        count, after = event_window(config)
        keys = self._keys(app_name, user_id, session_id)
        reply = protocol.parse_get(
            await self._link.read("get", protocol.get_call(keys, count=count, after=after))
        )
        return None if reply is None else session_of(keys, reply)

    async def _get_session_tail(
        self, app_name: str, user_id: str, session_id: str, after_revision: int | None
    ) -> SessionTail | None:
        keys = self._keys(app_name, user_id, session_id)
        call = protocol.get_call(keys, count=-1, after="", since=after_revision)
        reply = protocol.parse_get(await self._link.read("get", call))
        if reply is None:
            return None
        session = session_of(keys, reply)
        size = sum(len(item) for item in reply.events)
        return SessionTail(session, session._incarnation or "", size)

    async def _list_sessions(self, query: ListQuery) -> list[Session]:
        lister = _listing.Lister(self._space.app(query.app_name), query.user_id, self._link.call)
        return await lister.page(query.limit, query.after)

    async def _get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        key = self._space.app(app_name).user_state(user_id)
        stored: Mapping[Any, Any] = await self._link.call(lambda _: self._link.client.hgetall(key))
        return decode_mapping(stored)

    async def _stored_payloads(self, app_name: str, user_id: str, session_id: str) -> list[str]:
        events_key = self._keys(app_name, user_id, session_id).events
        found = await self._link.call(lambda _: self._link.client.lrange(events_key, 0, -1))
        return [text(item) for item in found]

    async def _delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        keys = self._keys(app_name, user_id, session_id)
        await self._link.write("delete", protocol.delete_call(keys, ack_ms=self._link.ack_ms))

    async def _idle_sessions(self, query: IdleQuery) -> list[IdleSession]:
        app = self._space.app(query.app_name)
        return await _listing.idle_sessions(app, query, self._link.call, self._link.client)

    async def _delete_if_idle(self, app_name: str, idle: IdleSession, before: float) -> bool:
        keys = self._keys(app_name, idle.user_id, idle.session_id)
        call = protocol.delete_call(keys, idle_before=before, ack_ms=self._link.ack_ms)
        return int(await self._link.write("delete", call)) == 1

    async def _append_event(self, session: Session, prepared: PreparedAppend) -> AppendResult:
        keys = self._keys(session.app_name, session.user_id, session.id)
        call = protocol.append_call(keys, prepared, ttl_ms=self._ttl_ms, ack_ms=self._link.ack_ms)
        reply = protocol.parse_append(await self._link.write("append", call))
        if reply.status == "ok":
            return AppendResult(
                prepared.event, reply.sequence, reply.mtime, released=prepared.release
            )
        if reply.status != "dup":
            raise append_refused(reply.status, session.id, reply.sequence)
        assert reply.stored_json is not None
        stored = event_from_stored(reply.stored_json, session.id, reply.sequence - 1)
        return AppendResult(stored, reply.sequence, reply.mtime, already_stored=True)

    async def _claim_and_read(
        self,
        key: SessionKey,
        lease_seconds: float,
        mark: str | None,
        token: int,
        read: ReadPlan,
        message: PreparedAppend | None,
    ) -> ClaimedStart | None:
        """One script, ``start.lua`` (:func:`._claims.start_turn`)."""
        keys = self._keys(*key)
        link, ttl_ms = self._link, self._ttl_ms
        return await _claims.start_turn(
            link, keys, token, lease_seconds, ttl_ms, mark, read, message
        )

    async def _creation_state(
        self, key: SessionKey, incarnation: str | None
    ) -> dict[str, Any] | None:
        meta = self._keys(*key).meta
        client = self._link.client
        nonce, stored = await self._link.call(lambda _: client.hmget(meta, "nonce", "init"))
        if stored is None or (incarnation is not None and text(nonce) != incarnation):
            return None
        return dict(codec.loads(stored))

    async def _fork_session(self, key: SessionKey, prepared: PreparedFork) -> None:
        source, target = self._keys(*key), self._keys(key[0], key[1], prepared.session_id)
        nonce, ttl_ms, ack_ms = uuid.uuid4().hex, self._ttl_ms, self._link.ack_ms
        call = protocol.fork_call(
            source, target, prepared, nonce=nonce, ttl_ms=ttl_ms, ack_ms=ack_ms
        )
        reply = text((await self._link.write("fork", call))[0])
        if reply == "missing":
            raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
        if reply == "exists":
            raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")

    async def _try_claim(
        self,
        key: SessionKey,
        lease_seconds: float,
        mark: str | None = None,
        *,
        token: int | None = None,
    ) -> ClaimAttempt:
        token = new_claim_token() if token is None else token
        keys = self._keys(*key)
        return await _claims.try_claim(self._link, keys, token, lease_seconds, self._ttl_ms, mark)

    async def _extend_claim(
        self, key: SessionKey, token: int, lease_seconds: float, mark: str | None = None
    ) -> bool:
        keys, ttl_ms = self._keys(*key), self._ttl_ms
        reply = await _claims.step(self._link, keys, "extend", token, lease_seconds, ttl_ms, mark)
        return reply.status == "ok"

    async def _release_claim(self, key: SessionKey, token: int, finished: bool = False) -> None:
        op: protocol.ClaimOp = "finish" if finished else "release"
        await _claims.step(self._link, self._keys(*key), op, token, 0.0, self._ttl_ms)

    async def _open_invocations(
        self, app_name: str, user_id: str | None, session_id: str | None
    ) -> list[OpenInvocation]:
        app = self._space.app(app_name)
        return await _claims.open_invocations(self._link, app, user_id, session_id)
