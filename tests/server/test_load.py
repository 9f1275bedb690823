"""The load test, short: replicas on one store, concurrent conversations, nothing lost.

``python -m bench serve`` is the long version (1, 2 and 4 replicas on every store, with
figures); this runs 2 replicas per store (a real Redis Cluster among them) with fewer
messages and asserts what it checks: every acknowledged message stored exactly once with its
answer, every conversation gapless and in order, zero 5xx — also with a replica SIGKILLed
mid-load and started again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bench.serve_load import LoadResult, run_load, running_replicas
from tests.redis_cluster import Cluster
from tests.stores import durable_params, served_store

pytestmark = pytest.mark.timeout(240)


_CLUSTER = pytest.param("redis_cluster", id="redis_cluster", marks=[pytest.mark.redis_cluster])


@pytest.fixture(params=[*durable_params(), _CLUSTER])
async def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    if request.param == "redis_cluster":
        # The suite's cluster; each test its own key prefix (the sessions of one app share
        # a slot, so one primary and its replica serve them).
        cluster: Cluster = request.getfixturevalue("redis_cluster")
        yield f"{cluster.url}?key_prefix=load-{request.node.name}:"
        return
    async with served_store(request.param, tmp_path) as url:
        yield url


def _assert_nothing_lost(result: LoadResult, expected_turns: int) -> None:
    assert result.problems == []
    assert result.gave_up == []
    assert result.server_errors == 0
    assert result.turns == expected_turns


async def test_two_replicas_lose_nothing(store_url: str) -> None:
    with running_replicas(store_url, 2) as replicas:
        result = await run_load(replicas, conversations=6, turns=4, hot_sessions=1, hot_clients=4)
    _assert_nothing_lost(result, 6 * 4 + 1 * 4 * 4)


async def test_a_replica_killed_mid_load_loses_nothing(store_url: str) -> None:
    with running_replicas(store_url, 2) as replicas:
        result = await run_load(
            replicas, conversations=6, turns=6, hot_sessions=1, hot_clients=3, kill_after_turns=10
        )
    _assert_nothing_lost(result, 6 * 6 + 1 * 3 * 6)
    assert result.dropped_connections > 0  # the kill really cut requests off
