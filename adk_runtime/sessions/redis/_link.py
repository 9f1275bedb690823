"""How a Redis session service reaches Redis: its client, its scripts and how calls go out.

- **One server**: scripts called at once share round trips, on a few connections, first come
  first served (:mod:`._batching`).
- **A cluster, or writes that wait for replicas**: no batching; calls beyond the pool wait in
  line (:class:`~._clients.Gate`): redis-py's blocking pool alone wakes its waiters in no
  order (some waited a second at 256 callers), and a cluster's per-node pools fail when full.
- **Waiting for replicas** (``wait_replicas``): every write script is followed by ``WAIT``
  in the same round trip, and a write that finds its work done (a retry) sets a marker so the
  ``WAIT`` proves the replicas hold what it reports (:mod:`._replicas`).
- **Event loops**: redis-py connections belong to the loop that opened them. When the service
  is used from another loop (``Runner.run`` runs each call on a loop of its own), the old
  loop's pooled connections are dropped, not closed (closing them needs their loop).

- **Retries**: every write script is safe to retry after a lost reply, so the client built
  from a URL retries a command whose connection dropped or timed out up to 3 times (10 ms to
  0.5 s apart, with jitter) before it raises ``BackendUnavailableError``; a client you pass
  keeps its own retry policy.

Every redis-py error becomes an adk_runtime error here (:func:`._errors.translate`).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import redis.asyncio as redis_asyncio
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from adk_runtime.errors import redact_url
from adk_runtime.sessions.redis import _batching, _clients, _options, _replicas
from adk_runtime.sessions.redis._errors import translate
from adk_runtime.sessions.redis._protocol import ACK_MARKER_MS
from adk_runtime.sessions.redis._scripts import Call, ScriptName, Scripts

__all__ = ["Link"]

_T = TypeVar("_T")


class Link:
    """A service's client and scripts, and the way its calls are sent (see the module)."""

    def __init__(
        self,
        client: Any,
        where: str,
        pool: _clients.PoolOptions,
        *,
        url: str | None,
        wait_replicas: int,
        wait_timeout_ms: int,
    ) -> None:
        """Use ``client`` (built from ``url`` and owned by the link when ``url`` is given)."""
        self.client = client
        self.where = where
        self.cluster = isinstance(client, RedisCluster)
        self._url = url
        self._owns_client = url is not None
        self._pool = pool
        self._wait_replicas = wait_replicas
        self._wait_timeout_ms = wait_timeout_ms
        self.ack_ms = ACK_MARKER_MS if wait_replicas else 0
        """What every write script gets as ``ack_ms``: the marker's TTL, 0 when not waiting."""
        self._batching = not self.cluster and not wait_replicas
        self._lanes = min(_batching.LANES, pool.max_connections)
        self.batcher: _batching.ScriptBatcher | None = None
        needs_gate = self.cluster or (self._owns_client and not self._batching)
        self._gate = _clients.Gate(pool) if needs_gate else None
        self.scripts = Scripts.register(client)
        self._replicas = self._replica_wait()
        self._loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def open(
        cls,
        url: str | None,
        client: Any,
        pool: _clients.PoolOptions,
        wait_replicas: int,
        wait_timeout_ms: int,
    ) -> Link:
        """The link of a service given ``url`` (it builds and owns a client) or ``client``.

        Raises:
            ConfigurationError: The URL is malformed or an option is invalid.
        """
        if url is not None:
            where = redact_url(url)
            pool = dataclasses.replace(
                pool, max_connections=_options.positive_int("max_connections", pool.max_connections)
            )
            client = _clients.build_client(url, where, pool)
        else:
            where = _options.describe(client)
        return cls(
            client,
            where,
            pool,
            url=url,
            wait_replicas=_options.count("wait_replicas", wait_replicas),
            wait_timeout_ms=_options.positive_int("wait_timeout_ms", wait_timeout_ms),
        )

    async def call(self, op: Callable[[Scripts], Awaitable[_T]]) -> _T:
        """Run ``op`` on the scripts of the running loop's client; redis-py errors translated.

        The call is built only after following the loop (a cluster client is replaced when
        the loop changes).
        """
        self._follow_loop()
        try:
            if self._gate is not None:
                await _clients.ready(self.client)
                return await self._gate.run(op(self.scripts), self.where)
            return await op(self.scripts)
        except (redis_asyncio.RedisError, OSError) as exc:
            raise translate(exc, self.where) from exc

    async def read(self, name: ScriptName, call: Call) -> Any:
        """Run script ``name`` with ``call``'s keys and arguments."""
        keys, args = call
        return await self.call(lambda scripts: self._send(getattr(scripts, name), keys, args))

    async def write(self, name: ScriptName, call: Call) -> Any:
        """Run write script ``name``, then ``WAIT`` for the replicas when ``wait_replicas`` asks."""
        keys, args = call
        replicas = self._replicas
        if replicas is None:
            return await self.call(lambda scripts: self._send(getattr(scripts, name), keys, args))
        return await self.call(lambda scripts: replicas.write(getattr(scripts, name), keys, args))

    def _send(self, script: AsyncScript, keys: list[str], args: list[Any]) -> Awaitable[Any]:
        """Send a script (batched with the calls made at the same moment on one server)."""
        if self.batcher is not None:
            return self.batcher.call(script, keys, args)
        return script(keys, args)

    async def close(self) -> None:
        """Close the node clients of ``wait_replicas``, and the client if the link built it."""
        self._follow_loop()
        if self._replicas is not None:
            await self._replicas.aclose()
        if self._owns_client:
            await self.client.aclose()

    def _follow_loop(self) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is loop:
            return
        if self._loop is not None and self._owns_client:
            if self.cluster:  # a cluster client has a pool per node: start afresh
                assert self._url is not None
                self.client = _clients.build_client(self._url, self.where, self._pool)
                self.scripts = Scripts.register(self.client)
            else:
                pool: Any = self.client.connection_pool  # reset() is untyped in redis-py
                pool.reset()
        if self._loop is not None:  # node clients of the finished loop are dropped
            self._replicas = self._replica_wait()
        if self._gate is not None:
            self._gate.reset()
        if self._batching:  # its lanes and line belong to the loop
            self.batcher = _batching.ScriptBatcher(self.client, self._lanes)
        self._loop = loop

    def _replica_wait(self) -> _replicas.ReplicaWait | None:
        if not self._wait_replicas:
            return None
        return _replicas.ReplicaWait(
            self.client, self._wait_replicas, self._wait_timeout_ms, self._pool
        )
