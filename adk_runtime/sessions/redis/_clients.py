"""The Redis clients of the session store: one server or a Redis Cluster.

- ``redis://`` / ``rediss://`` / ``unix://``: one server, through a *blocking* connection pool
  (beyond ``max_connections`` a call waits up to ``pool_timeout`` for a free connection).
- ``redis+cluster://`` / ``rediss+cluster://`` (any node of the cluster): redis-py's cluster
  client, which follows ``MOVED``/``ASK`` and re-reads the topology after a failover. Its
  per-node pools fail when full instead of waiting, so :class:`Gate` bounds the calls in flight
  to ``max_connections`` (a call beyond waits up to ``pool_timeout``).

**Reading the topology before the first command** (:func:`ready`): calls made before the
cluster client knows the cluster (the first calls of a fresh process, arriving together) would
be routed as if they had no key, to an arbitrary node, which answers ``MOVED``.
:class:`ClusterClient` finishes a topology read its caller abandons (a cancelled caller must
not leave the client half-initialized for the others).

Writes that wait for replicas (``wait_replicas``) run through :mod:`._replicas`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
from collections.abc import Awaitable
from typing import Any, TypeVar

import redis.asyncio as redis_asyncio
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
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
    """redis-py's cluster client, finishing a topology read its caller abandons."""

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
