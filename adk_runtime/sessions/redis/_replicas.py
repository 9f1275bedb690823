"""Waiting for replicas (``wait_replicas=N``): a write script and ``WAIT`` on one connection.

Redis replicates asynchronously, so an acknowledged write can be lost when its primary dies
before a replica has it. With ``N > 0`` each write script is followed, on the same connection
and in the same round trip, by ``WAIT N timeout``: the call returns only once N replicas hold
the write, or fails with ``BackendUnavailableError`` (the write is on the primary; retrying is
safe: appends are idempotent by event id). ``WAIT`` counts the writes of its own connection,
so both commands go out as one non-transactional pipeline of a plain client:

- one server: the service's own client;
- a Redis Cluster: a client of the node that serves the session's slot (one per node, built
  from the cluster client's connection settings). A ``MOVED`` reply sends the write to the
  node it names, and a keyed read through the cluster client brings the cluster client's slot
  map up to date (redis-py follows the redirect and re-reads the topology on its own command
  path); ``ASK`` sends ``ASKING`` first, in the same pipeline. A connection error or
  ``CLUSTERDOWN`` also updates the slot map before the error is raised, so the caller's retry
  goes to the node that serves the slot now.

**A retry that finds its work done** (a re-append of a stored event, a create or fork finding
its own nonce, a delete finding the session gone, a release finding its claim gone) writes
nothing, and since Redis 7.2 (and in Valkey) ``WAIT`` after a connection's last *write*
returns at once with every connected replica, though none may hold the first attempt, whose
connection dropped before its ``WAIT`` answered. So such a script sets a short-lived marker,
``P{A}:ack`` (the session's slot, ``ACK_MARKER_MS`` TTL; ``ack_ms`` of each write script):
Redis replicates a script's effects in order on one stream, so a replica that acknowledged
the marker holds everything the script read.

Only redis-py's public API is used: ``get_node_from_key``, ``get_connection_kwargs``, a
connection pool, a pipeline, and the redirect's address.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import redis.asyncio as redis_asyncio
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import Connection
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.commands.core import AsyncScript

from adk_runtime.errors import BackendUnavailableError
from adk_runtime.sessions.redis._clients import PoolOptions

__all__ = ["ReplicaWait"]

_CONNECTION_SETTINGS = frozenset(
    {
        "username",
        "password",
        "credential_provider",
        "client_name",
        "db",
        "decode_responses",
        "encoding",
        "encoding_errors",
        "socket_timeout",
        "socket_connect_timeout",
        "socket_keepalive",
        "socket_keepalive_options",
        "socket_read_size",
        "health_check_interval",
        "protocol",
        "driver_info",
        "legacy_responses",
    }
)
"""The cluster client's connection settings a node client takes (and every ``ssl_*`` one)."""

_REDIRECTS = 5
"""Redirects (``MOVED``/``ASK``) one write follows before it reports the slot as moving."""


class ReplicaWait:
    """Runs write scripts followed by ``WAIT`` on the same connection."""

    def __init__(self, client: Any, replicas: int, timeout_ms: int, pool: PoolOptions) -> None:
        """Wait for ``replicas`` replicas, at most ``timeout_ms``, after each write on ``client``.

        ``pool`` bounds the connections of each node client (on a cluster).
        """
        self._client = client
        self._wait = (replicas, timeout_ms)
        self._pool = pool
        self._nodes: dict[tuple[str, int], redis_asyncio.Redis] = {}

    async def write(self, script: AsyncScript, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """Run ``script``, then ``WAIT``; return the script's reply.

        Raises:
            BackendUnavailableError: Fewer replicas than asked acknowledged the write in time,
                or the slot kept moving.
            redis.RedisError: As redis-py raised it (the caller translates it).
        """
        if isinstance(self._client, RedisCluster):
            reply, acknowledged = await self._on_cluster(self._client, script, keys, args)
        else:
            wait = self._wait
            reply, acknowledged = await _script_and_wait(self._client, script, keys, args, wait)
        replicas, timeout_ms = self._wait
        if int(acknowledged) < replicas:
            raise BackendUnavailableError(
                f"The write reached the primary but only {acknowledged} of {replicas} "
                f"replica(s) acknowledged it within {timeout_ms} ms; it may be lost if the "
                "primary fails now. Retrying is safe (appends are idempotent by event id)."
            )
        return reply

    async def aclose(self) -> None:
        """Close the node clients (a cluster's; the service's own client is not touched)."""
        nodes, self._nodes = self._nodes, {}
        for node in nodes.values():
            await node.aclose()

    async def _on_cluster(
        self, cluster: RedisCluster, script: AsyncScript, keys: Sequence[str], args: Sequence[Any]
    ) -> tuple[Any, Any]:
        node = cluster.get_node_from_key(keys[0])
        if node is None:
            raise BackendUnavailableError("No Redis Cluster node serves this session's slot.")
        address: tuple[str, int] = (node.host, int(node.port))
        asking = False
        for _ in range(_REDIRECTS):
            client = self._node_client(cluster, address)
            try:
                return await _script_and_wait(client, script, keys, args, self._wait, asking)
            except redis_errors.MovedError as moved:
                address, asking = (moved.host or address[0], int(moved.port)), False
                await _update_slot_map(cluster, keys[0])
            except redis_errors.AskError as ask:  # a MovedError is an AskError too: after it
                address, asking = (ask.host or address[0], int(ask.port)), True
            except (
                redis_errors.ConnectionError,
                redis_errors.TimeoutError,
                redis_errors.ClusterDownError,
            ):
                await _update_slot_map(cluster, keys[0])
                raise
        raise BackendUnavailableError(
            f"The session's slot moved {_REDIRECTS} times during one write (a resharding or "
            "failover in progress); nothing was written. Retrying is safe."
        )

    def _node_client(self, cluster: RedisCluster, address: tuple[str, int]) -> redis_asyncio.Redis:
        client = self._nodes.get(address)
        if client is None:
            given = cluster.get_connection_kwargs()
            settings: dict[str, Any] = {
                name: value
                for name, value in given.items()
                if name in _CONNECTION_SETTINGS or name.startswith("ssl_")
            }
            connection_class = given.get("connection_class") or Connection
            settings.update(
                host=address[0],
                port=address[1],
                retry=Retry(ExponentialWithJitterBackoff(base=0.01, cap=0.5), retries=3),
            )
            pool = redis_asyncio.BlockingConnectionPool(
                max_connections=self._pool.max_connections,
                timeout=self._pool.timeout,
                connection_class=connection_class,
                **settings,
            )
            client = self._nodes[address] = redis_asyncio.Redis.from_pool(pool)
        return client


async def _update_slot_map(cluster: RedisCluster, key: str) -> None:
    """Bring the cluster client's slot map up to date for ``key``'s slot (best effort).

    A keyed read through the cluster client's own command path: redis-py follows a ``MOVED``
    there (and records the slot's new owner) and re-reads the topology after a connection
    error or ``CLUSTERDOWN``, retrying until the failover is over or its retries run out.
    """
    with contextlib.suppress(redis_errors.RedisError, OSError):
        await cluster.exists(key)


async def _script_and_wait(
    client: Any,
    script: AsyncScript,
    keys: Sequence[str],
    args: Sequence[Any],
    wait: tuple[int, int],
    asking: bool = False,
) -> tuple[Any, Any]:
    """EVALSHA then WAIT in one pipeline (one connection, one round trip); load the script once."""
    for attempt in range(2):
        async with client.pipeline(transaction=False) as pipe:
            if asking:
                pipe.execute_command("ASKING")
            pipe.evalsha(script.sha, len(keys), *keys, *args)
            pipe.wait(*wait)
            replies = await pipe.execute(raise_on_error=False)
        reply, acknowledged = replies[-2:]
        if isinstance(reply, redis_errors.NoScriptError) and attempt == 0:
            await client.script_load(script.script)
            continue
        for item in replies:
            if isinstance(item, BaseException):
                raise item
        return reply, acknowledged
    raise AssertionError("unreachable")
