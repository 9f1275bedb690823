"""Replicas on one store under load: ``python -m bench serve`` (see :mod:`bench.serve_load`).

For each store (a SQLite file, PostgreSQL, Redis, a Redis Cluster) and 1, 2 and 4 replicas:
turns/s, p50 and p99 of a message's latency (retries included), the 5xx count and the number
of problems found in the store afterwards (lost, doubled or orphaned messages; must be 0).
Then the same with 2 replicas, one of them SIGKILLed mid-load and started again.

This machine has 2 cores: the replicas, the clients and the store share them, so more
replicas cannot add CPU; the figure to read is that throughput holds and nothing is lost.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

from adk_runtime.sql import Database, create_engine, migrate
from bench.common import Report, percentile, postgres_database, quick
from bench.serve_load import LoadResult, run_load, running_replicas

SUITE = "serve"
REPLICAS = (1, 2, 4)
REDIS_URL = "redis://127.0.0.1:6379/0"


@contextlib.asynccontextmanager
async def _store(backend: str) -> AsyncIterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite+aiosqlite:///{Path(folder) / 'load.db'}"
    elif backend == "postgres":
        async with postgres_database("serve") as url:
            db = Database(create_engine(url), owns_engine=True)
            try:
                await migrate.upgrade(db)
            finally:
                await db.dispose()
            yield url
    elif backend == "redis":
        from redis.asyncio import Redis

        prefix = f"adkbench-serve-{id(object())}:"
        try:
            yield f"{REDIS_URL}?key_prefix={prefix}"
        finally:
            client = Redis.from_url(REDIS_URL)
            keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
            if keys:
                await client.delete(*keys)
            await client.aclose()
    else:  # a Redis Cluster of its own, started for this run and stopped after
        from tests.redis_cluster import running_cluster

        with running_cluster() as cluster:
            yield f"{cluster.url}?key_prefix=load:"


def _record(report: Report, backend: str, label: str, result: LoadResult) -> None:
    report.add(SUITE, backend, f"turns/s {label}", result.turns / result.seconds, "turns/s")
    report.add(SUITE, backend, f"p50 {label}", percentile(result.latencies_ms, 50), "ms")
    report.add(SUITE, backend, f"p99 {label}", percentile(result.latencies_ms, 99), "ms")
    report.add(SUITE, backend, f"5xx {label}", result.server_errors, "responses")
    lost = len(result.problems) + len(result.gave_up)
    report.add(SUITE, backend, f"problems {label}", lost, "found")
    # What limits it: cores the replicas and the load generator kept busy during the run.
    report.add(
        SUITE,
        backend,
        f"replica cores {label}",
        result.replica_cpu_seconds / result.seconds,
        "cores",
    )
    report.add(
        SUITE, backend, f"client cores {label}", result.client_cpu_seconds / result.seconds, "cores"
    )


async def run(report: Report) -> None:
    conversations, turns = (8, 4) if quick() else (32, 10)
    failures: list[str] = []
    for backend in ("sqlite", "postgres", "redis", "redis_cluster"):
        async with _store(backend) as url:
            for count in REPLICAS:
                with running_replicas(url, count) as replicas:
                    result = await run_load(
                        replicas, conversations=conversations, turns=turns, tag=f"r{count}-"
                    )
                _record(report, backend, f"{count} replica(s)", result)
                failures += [f"{backend} x{count}: {p}" for p in result.problems]
            with running_replicas(url, 2) as replicas:
                killed = await run_load(
                    replicas,
                    conversations=conversations,
                    turns=turns,
                    kill_after_turns=conversations * turns // 4,
                    tag="k-",
                )
            _record(report, backend, "2 replicas, one killed", killed)
            failures += [f"{backend} kill: {p}" for p in killed.problems]
    if failures:
        found = "; ".join(failures[:10])
        raise AssertionError(f"the store lost, doubled or orphaned messages: {found}")
