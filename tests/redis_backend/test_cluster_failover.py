"""Redis Cluster: a primary SIGKILLed mid-load; the service rides through the failover.

Six conversations of one app (one hash slot, so one primary) append as fast as they can. The
primary serving them is killed; its replica takes over within a few node timeouts. Every call
either succeeds or raises ``BackendUnavailableError`` (never another error), the same service
object goes on appending after the failover (no restart), every conversation stays gapless,
and the test reports exactly which acknowledged appends survived:

- ``wait_replicas=0`` (the default): replication is asynchronous, so the last acknowledged
  appends before the kill may be lost; the count is printed (the loss window), not asserted.
- ``wait_replicas=1``: an append is acknowledged only once the replica holds it, so none is
  lost. The promoted replica has no replica of its own, so appends are refused (unconfirmed,
  ``BackendUnavailableError``) until the killed node is back as its replica; then they are
  acknowledged again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import subprocess
import time
from collections.abc import Iterator

import pytest

from adk_runtime.errors import BackendUnavailableError, StaleSessionError
from adk_runtime.events import Event
from adk_runtime.sessions import RedisSessionService, Session
from adk_runtime.testing import text_event
from tests.redis_cluster import Cluster, running_cluster

pytestmark = [pytest.mark.redis_cluster, pytest.mark.timeout(180)]

APP = "failover"
WRITERS = 6
SECONDS_BEFORE_KILL = 1.0
SECONDS_AFTER_KILL = 6.0
"""How long the writers go on after the kill (after the restart, when there is one)."""


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    with running_cluster() as running:
        yield running


@dataclasses.dataclass
class Outcome:
    acknowledged: list[str] = dataclasses.field(default_factory=list)
    acknowledged_after_kill: int = 0
    unavailable: int = 0
    other_errors: list[str] = dataclasses.field(default_factory=list)


async def _writer(
    service: RedisSessionService, sid: str, killed: asyncio.Event, stop: asyncio.Event
) -> Outcome:
    outcome = Outcome()
    session = await service.create_session(app_name=APP, user_id="u", session_id=sid)
    event: Event | None = None
    while not stop.is_set():
        event = event or text_event(f"{sid}-{len(outcome.acknowledged)}")
        try:
            await service.append_event(session, event)
        except BackendUnavailableError:
            outcome.unavailable += 1
            await asyncio.sleep(0.05)
            continue  # the same event again: appends are idempotent by event id
        except StaleSessionError:
            # An acknowledged append was lost in the failover: storage is behind this
            # object. Reload and go on with the same event.
            reloaded = await service.get_session(app_name=APP, user_id="u", session_id=sid)
            assert reloaded is not None
            session = reloaded
            continue
        except Exception as error:  # anything else is a bug
            outcome.other_errors.append(f"{type(error).__name__}: {error}")
            return outcome
        outcome.acknowledged.append(event.id)
        if killed.is_set():
            outcome.acknowledged_after_kill += 1
        event = None
    return outcome


async def _run_with_a_kill(
    cluster: Cluster, wait_replicas: int, *, restart: bool = False
) -> tuple[list[Outcome], dict[str, Session]]:
    url = f"{cluster.url}?key_prefix=fo:&wait_replicas={wait_replicas}"
    async with RedisSessionService.from_url(url) as service:
        killed, stop = asyncio.Event(), asyncio.Event()
        writers = [
            asyncio.ensure_future(_writer(service, f"s{i}", killed, stop)) for i in range(WRITERS)
        ]
        await asyncio.sleep(SECONDS_BEFORE_KILL)
        primary = cluster.primary_of("{failover}")
        await asyncio.to_thread(cluster.kill, primary)
        killed.set()
        if restart:
            # Only once the replica took over: a node without persistence that came back
            # before would rejoin empty, still owning its slots.
            await asyncio.to_thread(_wait_for_failover, cluster, primary)
            await asyncio.to_thread(cluster.restart, primary)
            await asyncio.to_thread(_wait_for_replica_link, cluster, primary)
        await asyncio.sleep(SECONDS_AFTER_KILL)
        stop.set()
        outcomes = await asyncio.gather(*writers)
        stored: dict[str, Session] = {}
        for i in range(WRITERS):
            session = await service.get_session(app_name=APP, user_id="u", session_id=f"s{i}")
            assert session is not None
            stored[f"s{i}"] = session
    return outcomes, stored


def _wait_for_failover(cluster: Cluster, dead: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if cluster.primary_of("{failover}") != dead:
                return
        except AssertionError:  # the slot is between owners
            pass
        time.sleep(0.1)
    raise AssertionError("no replica took over within 30 s")


def _wait_for_replica_link(cluster: Cluster, port: int) -> None:
    """Wait until the restarted node replicates its old shard again (its full sync is done)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            info = cluster.cli(port, "INFO", "replication")
        except subprocess.SubprocessError:
            info = ""
        if "role:slave" in info and "master_link_status:up" in info:
            return
        time.sleep(0.1)
    raise AssertionError("the restarted node did not become a synced replica within 30 s")


def _report(outcomes: list[Outcome], stored: dict[str, Session], wait_replicas: int) -> int:
    lost = 0
    for i, outcome in enumerate(outcomes):
        session = stored[f"s{i}"]
        assert outcome.other_errors == []
        # Gapless and in order, whatever was lost.
        assert session.revision == len(session.events)
        ids = [event.id for event in session.events]
        assert len(set(ids)) == len(ids)
        missing = [event_id for event_id in outcome.acknowledged if event_id not in set(ids)]
        lost += len(missing)
        # The service went on after the failover, without a restart.
        assert outcome.acknowledged_after_kill > 0
    acknowledged = sum(len(outcome.acknowledged) for outcome in outcomes)
    unavailable = sum(outcome.unavailable for outcome in outcomes)
    print(
        f"\nwait_replicas={wait_replicas}: {acknowledged} appends acknowledged, {lost} of them "
        f"lost in the failover; {unavailable} calls answered BackendUnavailableError"
    )
    return lost


async def test_a_primary_killed_mid_load_without_waiting_for_replicas(cluster: Cluster) -> None:
    outcomes, stored = await _run_with_a_kill(cluster, wait_replicas=0)
    _report(outcomes, stored, 0)


async def test_with_wait_replicas_no_acknowledged_append_is_lost(cluster: Cluster) -> None:
    outcomes, stored = await _run_with_a_kill(cluster, wait_replicas=1, restart=True)
    assert _report(outcomes, stored, 1) == 0
