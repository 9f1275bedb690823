"""The Redis clients of the session store: one server or a Redis Cluster, and waiting for replicas.

- ``redis://`` / ``rediss://`` / ``unix://``: one server, through a *blocking* connection pool
  (beyond ``max_connections`` a call waits up to ``pool_timeout`` for a free connection).
- ``redis+cluster://`` / ``rediss+cluster://`` (any node of the cluster): redis-py's cluster
  client, which follows ``MOVED``/``ASK`` and re-reads the topology after a failover. Its
  per-node pools fail when full instead of waiting, so :class:`Gate` bounds the calls in flight
  to ``max_connections`` (a call beyond waits up to ``pool_timeout``).

**Two defects of redis-py's asyncio cluster client (8.1) under concurrency**, worked around by
:class:`ClusterClient` and :func:`ready`, and proven by the load test on a real cluster
(``tests/server/test_load.py``, ``python -m bench serve``):

- A command issued before the client knows the cluster (no default node yet: the first calls
  of a fresh process, arriving together) is routed as if it had no key, to an arbitrary node,
  which answers ``MOVED``. :func:`ready` reads the topology once before the first command.
- To re-read the topology (every 5th ``MOVED``, ``CLUSTERDOWN`` during a failover) the client
  calls its own ``aclose()``, which disconnects every connection, including those other
  concurrent calls are using mid-command: they fail inside redis-py with ``AttributeError``
  (a closed writer), which reached clients as HTTP 500s. :class:`ClusterClient` re-reads the
  topology without closing connections in use (the topology refresh already recycles each
  connection lazily, once its call is done) and keeps ``aclose`` for the real close.

**Waiting for replicas** (``wait_replicas=N``): Redis replicates asynchronously, so an
acknowledged write can be lost when its primary dies before a replica has it. With ``N > 0``
each write script is followed, on the same connection and in the same round trip, by
``WAIT N timeout``: the call returns only once N replicas hold the write, or fails with
``BackendUnavailableError`` (the write is on the primary; retrying is safe: appends are
idempotent by event id).
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

import redis.asyncio as redis_asyncio
from redis import exceptions as redis_errors
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.commands.core import AsyncScript
from redis.driver_info import DriverInfo

from adk_runtime._slots import Slots
from adk_runtime._url_registry import REDIS_SCHEMES, url_scheme
from adk_runtime.errors import BackendUnavailableError, ConfigurationError

__all__ = [
    "CLUSTER_SCHEMES",
    "ClusterClient",
    "Gate",
    "PoolOptions",
    "build_client",
    "eval_and_wait",
    "is_cluster_url",
    "ready",
]

_T = TypeVar("_T")

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
"""URL schemes that select a Redis Cluster (any node's address)."""

# Resolved once at import: redis-py would otherwise look its own version up in the installed
# package metadata (a blocking file system read) for every connection it opens on the loop.
_DRIVER_INFO = DriverInfo()


@dataclasses.dataclass(frozen=True)
class PoolOptions:
    """Connections of the service's own client.

    Attributes:
        max_connections: At most this many calls in flight (per node on a cluster).
        timeout: Seconds a call waits for a free connection before it fails.
    """

    max_connections: int
    timeout: float


class ClusterClient(RedisCluster):
    """redis-py's cluster client, re-reading the topology without closing calls in flight."""

    async def aclose(self) -> None:
        """Read the topology again before the next command; close nothing.

        redis-py calls this on itself to recover from ``MOVED`` and ``CLUSTERDOWN``; the
        service closes the client with :meth:`shutdown`.
        """
        self._initialize = True

    async def close_connections(self) -> None:
        """Close every connection (the client can still be used: it reconnects)."""
        await super().aclose()

    async def initialize(
        self,
        additional_startup_nodes_info: list[tuple[str, int]] | None = None,
        last_failed_node_name: str | None = None,
    ) -> ClusterClient:
        """Read the topology, to the end even when the caller is cancelled.

        A topology read interrupted halfway makes redis-py close every node's connections,
        those of other calls included; a cancelled caller (a client that went away) must
        not do that to the others.
        """
        refresh = super().initialize(additional_startup_nodes_info, last_failed_node_name)
        await asyncio.shield(refresh)
        return self


async def ready(client: Any) -> None:
    """Read a cluster client's topology before its first command (no-op otherwise).

    Without it, calls made before the topology is known are sent to an arbitrary node.
    """
    if isinstance(client, RedisCluster) and client.get_default_node() is None:
        await client.initialize()


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://``, ``rediss+cluster://``)."""
    return url_scheme(url) in CLUSTER_SCHEMES


def build_client(url: str, where: str, pool: PoolOptions) -> Any:
    """The redis-py client for ``url`` (decoded replies, retries of dropped connections).

    Raises:
        ConfigurationError: The URL or an option is malformed.
    """
    if url_scheme(url) not in (*REDIS_SCHEMES, *CLUSTER_SCHEMES, "unix"):
        raise ConfigurationError(
            f"{where!r} is not a redis://, rediss://, redis+cluster://, rediss+cluster:// or "
            "unix:// URL."
        )
    if not (math.isfinite(pool.timeout) and pool.timeout > 0):
        raise ConfigurationError("pool_timeout must be a positive number of seconds.")
    common: dict[str, Any] = {
        "decode_responses": True,
        "socket_connect_timeout": 10,
        "socket_timeout": 30,
        "driver_info": _DRIVER_INFO,
    }
    try:
        if is_cluster_url(url):
            plain = url.split("+cluster", 1)[0] + url[url.index("://") :]
            # Retries here cover a failover: a dead primary's slots move to its replica, and
            # the client re-reads the topology between attempts (about 2 s in all).
            retry = Retry(ExponentialWithJitterBackoff(base=0.05, cap=0.5), retries=6)
            return ClusterClient.from_url(
                plain, max_connections=pool.max_connections, retry=retry, **common
            )
        # A blocking pool: beyond max_connections a call waits (up to pool_timeout) for a
        # connection instead of failing with MaxConnectionsError.
        connections = redis_asyncio.BlockingConnectionPool.from_url(
            url,
            max_connections=pool.max_connections,
            timeout=pool.timeout,
            retry=Retry(ExponentialWithJitterBackoff(base=0.01, cap=0.5), retries=3),
            **common,
        )
    except (ValueError, TypeError) as exc:
        raise ConfigurationError(f"Invalid Redis URL {where!r}: {exc}") from None
    return redis_asyncio.Redis.from_pool(connections)


class Gate:
    """Bounds the calls in flight; calls beyond wait in line (see :mod:`adk_runtime._slots`)."""

    def __init__(self, pool: PoolOptions) -> None:
        """Allow ``pool.max_connections`` calls at once; a call beyond waits up to the timeout."""
        self._pool = pool
        self._slots: Slots | None = None

    def reset(self) -> None:
        """Forget the slots of a finished event loop (its waiters belong to that loop)."""
        self._slots = None

    async def run(self, call: Awaitable[_T], where: str) -> _T:
        """Await ``call`` once a slot is free (it is closed unawaited if none frees in time)."""
        if self._slots is None:
            self._slots = Slots(self._pool.max_connections)
        slots = self._slots
        if not await slots.acquire(self._pool.timeout):
            close = getattr(call, "close", None)
            if close is not None:
                close()
            raise BackendUnavailableError(
                f"Redis at {where}: no free connection within {self._pool.timeout:g} s "
                f"({self._pool.max_connections} calls in flight). Raise max_connections or "
                "pool_timeout; nothing was sent."
            )
        try:
            return await call
        finally:
            slots.release()


async def eval_and_wait(
    client: Any,
    script: AsyncScript,
    keys: Sequence[str],
    args: Sequence[Any],
    replicas: int,
    timeout_ms: int,
) -> Any:
    """Run ``script`` and then ``WAIT replicas timeout_ms`` on one connection, one round trip.

    Returns the script's reply. Raises ``redis`` errors as they come (the caller translates
    them), and ``BackendUnavailableError`` when fewer replicas acknowledged the write in time.
    """
    wait = (replicas, timeout_ms)
    if isinstance(client, RedisCluster):
        try:
            await client.initialize()  # reads the topology when it is unknown or stale
        except (redis_errors.ConnectionError, redis_errors.TimeoutError):
            client.replace_default_node()  # the node it asked may be the one that died
            raise
        node = client.get_node_from_key(keys[0])
        if node is None:
            raise BackendUnavailableError("No Redis Cluster node serves this session's slot.")
        connection = node.acquire_connection()
        try:
            reply, acknowledged = await _on_connection(connection, script, keys, args, wait)
        except (redis_errors.ConnectionError, redis_errors.TimeoutError):
            await connection.disconnect()
            # As redis-py's own command path does: try this node last when the topology is
            # read again, and read it again before the next call (its slots may have moved).
            client.nodes_manager.move_node_to_end_of_cached_nodes(node.name)
            default = client.get_default_node()
            if default is not None and default.name == node.name:
                client.replace_default_node()
            client._initialize = True
            raise
        except (redis_errors.MovedError, redis_errors.ClusterDownError):
            client._initialize = True  # a failover moved the slot: read the topology again
            raise
        finally:
            node.release(connection)
    else:
        pool = client.connection_pool
        connection = await pool.get_connection()
        try:
            reply, acknowledged = await _on_connection(connection, script, keys, args, wait)
        finally:
            await pool.release(connection)
    if int(acknowledged) < replicas:
        raise BackendUnavailableError(
            f"The write reached the primary but only {acknowledged} of {replicas} replica(s) "
            f"acknowledged it within {timeout_ms} ms; it may be lost if the primary fails now. "
            "Retrying is safe (appends are idempotent by event id)."
        )
    return reply


async def _on_connection(
    connection: Any,
    script: AsyncScript,
    keys: Sequence[str],
    args: Sequence[Any],
    wait: tuple[int, int],
) -> tuple[Any, Any]:
    for attempt in range(2):
        commands = [("EVALSHA", script.sha, len(keys), *keys, *args), ("WAIT", *wait)]
        await connection.send_packed_command(connection.pack_commands(commands))
        replies: list[Any] = []
        for _ in commands:  # read both replies even if the first is an error
            try:
                replies.append(await connection.read_response())
            except redis_errors.ResponseError as error:
                replies.append(error)
        reply, acknowledged = replies
        if isinstance(reply, redis_errors.NoScriptError) and attempt == 0:
            await connection.send_command("SCRIPT", "LOAD", script.script)
            await connection.read_response()
            continue
        if isinstance(reply, BaseException):
            raise reply
        if isinstance(acknowledged, BaseException):
            raise acknowledged
        return reply, acknowledged
    raise AssertionError("unreachable")
