"""Redis Cluster: many calls at once on one service, on a real cluster.

Two defects of redis-py's asyncio cluster client made a second server replica answer 500s in
the load test (``AttributeError`` on a closed writer inside redis-py):

- the first calls of a fresh client, arriving together before it knew the cluster, were sent
  to an arbitrary node and bounced with ``MOVED``;
- every few ``MOVED`` (and on ``CLUSTERDOWN``) the client re-read the topology by closing its
  own connections, those other calls were using mid-command included.

These tests drive a fresh service with concurrent turns (claim, read, append, release) while
the client is told to re-read the topology over and over, the way redis-py does it on itself,
and require every call to succeed and every conversation to hold exactly its events. A service
first used on one event loop and then on another (``Runner.run`` does that) must work too.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from adk_runtime.sessions import RedisSessionService
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


async def _herd(service: RedisSessionService, reset_topology: bool) -> None:
    done = asyncio.Event()

    async def reset_again_and_again() -> int:
        resets = 0
        while not done.is_set() and resets < RESETS:
            # What redis-py does on itself every 5th MOVED and on CLUSTERDOWN.
            await service._client.aclose()
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
    assert isinstance(service._client, ClusterClient)
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


async def test_a_connection_closed_under_a_call_is_unavailable_not_a_bug() -> None:
    from redis.asyncio.connection import Connection

    from adk_runtime.errors import BackendUnavailableError
    from adk_runtime.sessions.redis._errors import closed_under_the_call, translate

    closed = Connection()  # never connected: its stream is None, as after a close under it
    with pytest.raises(AttributeError) as inside_redis:
        await closed._send_packed_command([b"PING\r\n"])
    assert closed_under_the_call(inside_redis.value)
    error = translate(inside_redis.value, "redis+cluster://127.0.0.1:1/0")
    assert isinstance(error, BackendUnavailableError)
    assert "retrying it is safe" in str(error)

    with pytest.raises(AttributeError) as ours:
        _ = None.missing  # type: ignore[attr-defined]  # an AttributeError of our own code
    assert not closed_under_the_call(ours.value)
