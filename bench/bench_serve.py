"""Replicas on one store under load: ``python -m bench serve`` (see :mod:`bench.serve_load`).

For each store (a SQLite file, PostgreSQL, Redis, a Redis Cluster) and 1, 2 and 4 replicas:
turns/s, p50 and p99 of a message's latency (retries included), the 5xx count and the number
of problems found in the store afterwards (lost, doubled or orphaned messages; must be 0).
Then the same with 2 replicas, one of them SIGKILLed mid-load and started again.

On one machine the replicas, the load generator and the store share the cores, so more
replicas cannot add CPU. Per store the run also reports the CPU each turn costs (replica,
load generator, store server, from /proc) and the ceiling it puts on any number of replicas
here: cores / CPU per turn. Run it alone on the machine (the store's CPU is counted machine
wide).
"""

from __future__ import annotations

import contextlib
import os
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
    report.add(
        SUITE, backend, f"store cores {label}", result.store_cpu_seconds / result.seconds, "cores"
    )


def _cpu_ms_per_turn(result: LoadResult) -> float:
    spent = result.replica_cpu_seconds + result.client_cpu_seconds + result.store_cpu_seconds
    return spent * 1000 / max(result.turns, 1)


def _scaling(report: Report, backend: str, by_count: dict[int, LoadResult]) -> None:
    """What limits scaling here: the turns/s this machine's cores allow at all.

    Every turn costs CPU in the replica, in the load generator and in the store server, all on
    this one machine. With every core busy, no number of replicas can do more than
    ``cores / (CPU per turn)`` turns/s; that ceiling, over one replica's turns/s, bounds the
    gain from a second replica here (on separate machines each replica brings its cores).
    """
    one = by_count[1]
    rate = {count: r.turns / r.seconds for count, r in by_count.items()}
    ceiling = (os.cpu_count() or 1) * 1000 / _cpu_ms_per_turn(one)
    report.add(
        SUITE, backend, "CPU ms per turn (replica + client + store)", _cpu_ms_per_turn(one), "ms"
    )
    report.add(
        SUITE,
        backend,
        "replica CPU ms per turn",
        one.replica_cpu_seconds * 1000 / max(one.turns, 1),
        "ms",
    )
    report.add(SUITE, backend, "turns/s ceiling of this machine", ceiling, "turns/s")
    report.add(SUITE, backend, "2 replicas / 1 replica", rate[2] / rate[1], "x")
    report.add(SUITE, backend, "machine ceiling / 1 replica", ceiling / rate[1], "x")


async def run(report: Report) -> None:
    conversations, turns = (8, 4) if quick() else (32, 10)
    failures: list[str] = []
    for backend in ("sqlite", "postgres", "redis", "redis_cluster"):
        async with _store(backend) as url:
            by_count: dict[int, LoadResult] = {}
            for count in REPLICAS:
                with running_replicas(url, count) as replicas:
                    result = await run_load(
                        replicas, conversations=conversations, turns=turns, tag=f"r{count}-"
                    )
                _record(report, backend, f"{count} replica(s)", result)
                failures += [f"{backend} x{count}: {p}" for p in result.problems]
                by_count[count] = result
            _scaling(report, backend, by_count)
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
