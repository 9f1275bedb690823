"""Redis Cluster: many calls at once on one service, on a real cluster.

A second server replica once answered 500s in the load test: the first calls of a fresh
client, arriving together before it knew the cluster, were sent to an arbitrary node, and the
client's topology refresh (every few ``MOVED``) closed connections other calls were using.

These tests drive a fresh service with concurrent turns (claim, read, append, release) while
real ``MOVED`` replies make the client re-read the topology over and over, and require every
call to succeed and every conversation to hold exactly its events. A service first used on one
event loop and then on another (``Runner.run`` does that) must work too. Connections the
server closes under calls (with and without ``wait_replicas``) must end each call in success
or a ``BackendUnavailableError``, never another error.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest
import redis.asyncio as redis_asyncio
from redis.asyncio.cluster import RedisCluster

from adk_runtime.errors import BackendUnavailableError
from adk_runtime.sessions import RedisSessionService, Session
from adk_runtime.sessions.redis._clients import ClusterClient
from adk_runtime.testing import text_event
from tests.redis_cluster import Cluster, running_cluster

pytestmark = [pytest.mark.redis_cluster, pytest.mark.timeout(120)]

APP = "herd"
CONVERSATIONS = 48
TURNS = 6
# Enough resets to land on calls in every stage of a turn many times over; the herd then
# finishes on the last client (resetting until it is done only makes the test longer).
RESETS = 150


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with running_cluster() as running:
        yield running


async def _turns(service: RedisSessionService, sid: str) -> None:
    key = (APP, "u", sid)
    for turn in range(TURNS):
        attempt = await service._try_claim(key, 10.0)
        assert attempt.token is not None, f"{sid} is held by nobody else"
        session = await service.get_session(app_name=APP, user_id="u", session_id=sid)
        assert session is not None
        session._fence = attempt.token
        await service.append_event(session, text_event(f"{sid} t{turn}", role="user"))
        await service._release_claim(key, attempt.token)


async def _moved(client: RedisCluster, key: str) -> None:
    """A keyed read sent to a primary that does not serve ``key``: a real ``MOVED``.

    redis-py follows it, and every few ``MOVED`` re-reads the topology, with the calls of the
    other conversations in flight.
    """
    if client.get_default_node() is None:
        return  # the client does not know the cluster yet: nothing can move
    owner = client.get_node_from_key(key)
    wrong = next(node for node in client.get_primaries() if node.name != owner.name)
    await client.execute_command("EXISTS", key, target_nodes=wrong)


async def _herd(service: RedisSessionService, reset_topology: bool) -> None:
    done = asyncio.Event()

    async def reset_again_and_again() -> int:
        resets = 0
        while not done.is_set() and resets < RESETS:
            await _moved(service._link.client, f"herd-{reset_topology}:{{{APP}}}:probe")
            resets += 1
            await asyncio.sleep(0.002)
        return resets

    resetter = asyncio.ensure_future(reset_again_and_again()) if reset_topology else None
    try:
        await asyncio.gather(*(_turns(service, f"c{i}") for i in range(CONVERSATIONS)))
    finally:
        done.set()
        if resetter is not None:
            assert await resetter > 0
    for i in range(CONVERSATIONS):
        session = await service.get_session(app_name=APP, user_id="u", session_id=f"c{i}")
        assert session is not None
        assert [e.content.parts[0].text for e in session.events if e.content] == [
            f"c{i} t{turn}" for turn in range(TURNS)
        ]
        assert session.revision == TURNS


async def _create_all(url: str) -> None:
    async with RedisSessionService.from_url(url) as service:
        for i in range(CONVERSATIONS):
            await service.create_session(app_name=APP, user_id="u", session_id=f"c{i}")


@pytest.mark.parametrize("reset_topology", [False, True], ids=["fresh", "topology-resets"])
async def test_concurrent_turns_on_a_fresh_client(cluster: Cluster, reset_topology: bool) -> None:
    url = f"{cluster.url}?key_prefix=herd-{reset_topology}:"
    await _create_all(url)
    service = RedisSessionService.from_url(url)  # fresh: its first calls arrive together
    assert isinstance(service._link.client, ClusterClient)
    try:
        await _herd(service, reset_topology)
    finally:
        await service.close()


# The first loop's connections are dropped, not closed (their loop is gone): their sockets
# are reclaimed by the garbage collector, which warns about them.
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_service_moved_to_another_event_loop(cluster: Cluster) -> None:
    url = f"{cluster.url}?key_prefix=loops:"
    asyncio.run(_create_all(url))
    service = RedisSessionService.from_url(url)
    got = asyncio.run(service.get_session(app_name=APP, user_id="u", session_id="c0"))
    assert got is not None
    # A new loop: the first call of this loop must go out on a client of this loop.
    asyncio.run(_herd(service, reset_topology=False))
    asyncio.run(service.close())
    del service
    gc.collect()  # the first loop's dropped connections warn here, not in a later test


async def _kill_clients(cluster: Cluster) -> None:
    """Close every client connection of every node (``CLIENT KILL``), calls in flight included."""
    for port in list(cluster.processes):
        async with redis_asyncio.Redis(port=port) as node:
            await node.execute_command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")


KILLS = 10
"""Rounds of ``CLIENT KILL`` on every node while the writers go on."""


@pytest.mark.parametrize("wait_replicas", [0, 1])
async def test_connections_closed_under_calls_are_unavailable_not_a_bug(
    cluster: Cluster, wait_replicas: int
) -> None:
    url = f"{cluster.url}?key_prefix=closed-{wait_replicas}:&wait_replicas={wait_replicas}"
    await _create_all(url)
    unavailable, errors = 0, []
    acknowledged: dict[str, list[str]] = {}
    done = asyncio.Event()

    async def write(service: RedisSessionService, session: Session) -> None:
        nonlocal unavailable
        texts = acknowledged[session.id] = []
        while not done.is_set():
            item = text_event(f"{session.id} t{len(texts)}", role="user")
            while True:
                try:
                    await service.append_event(session, item)
                    break
                except BackendUnavailableError:
                    unavailable += 1  # the same event again: appends are idempotent by id
                    await asyncio.sleep(0.01)
                except Exception as error:  # anything else is a bug
                    errors.append(f"{type(error).__name__}: {error}")
                    return
            texts.append(f"{session.id} t{len(texts)}")

    async def kill_again_and_again() -> None:
        for _ in range(KILLS):
            await _kill_clients(cluster)
            await asyncio.sleep(0.02)
        done.set()

    async with RedisSessionService.from_url(url) as service:
        sessions = [
            await service.get_session(app_name=APP, user_id="u", session_id=f"c{i}")
            for i in range(CONVERSATIONS)
        ]
        killer = asyncio.ensure_future(kill_again_and_again())
        try:
            await asyncio.gather(*(write(service, s) for s in sessions if s is not None))
        finally:
            done.set()
            await killer
        assert errors == []
        for i in range(CONVERSATIONS):
            session = await service.get_session(app_name=APP, user_id="u", session_id=f"c{i}")
            assert session is not None
            stored = [e.content.parts[0].text for e in session.events if e.content]
            assert stored == acknowledged[f"c{i}"]
    print(f"\nwait_replicas={wait_replicas}: {unavailable} calls answered unavailable")
