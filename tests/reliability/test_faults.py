"""Faults: connections terminated mid-transaction, servers crashed and restarted under load.

While a load appends events, the backend is hurt: a PostgreSQL connection is terminated
from another session while an append is in flight; a private PostgreSQL cluster is crashed
(``pg_ctl stop -m immediate``) and restarted; a private Redis server with append-only
persistence is SIGKILLed and restarted. The service must report
:class:`~adk_runtime.errors.BackendUnavailableError` (never a raw driver error), recover
without being rebuilt, and lose nothing it acknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adk_runtime.errors import BackendUnavailableError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService
from tests.reliability.servers import throwaway_postgres, throwaway_redis
from tests.stores import (
    Store,
    drop_redis_prefix,
    fresh_store,
    postgres_admin_dsn,
)

needs = {name: getattr(pytest.mark, name) for name in ("postgres", "redis")}


class Load:
    """Appends to one session until stopped, retrying each event until it is acknowledged."""

    def __init__(self, service: BaseSessionService) -> None:
        self.service = service
        self.acked: list[str] = []
        self.unavailable = 0
        self.unavailable_messages: set[str] = set()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> Load:
        self.session = await self.service.create_session(app_name="fault", user_id="u")
        self._task = asyncio.create_task(self._run())
        return self

    async def _append(self, event: Event) -> None:
        deadline = time.monotonic() + 90
        while True:
            try:
                await self.service.append_event(self.session, event)
                return
            except BackendUnavailableError as exc:
                self.unavailable += 1
                self.unavailable_messages.add(str(exc)[:200])
                assert time.monotonic() < deadline, "the service did not recover in 90 s"
                await asyncio.sleep(0.05)

    async def _run(self) -> None:
        n = 0
        while not self._stop.is_set():
            n += 1
            event_id = f"e-{n}"
            delta = {"n": n, "user:n": n, "app:n": n}
            await self._append(
                Event(id=event_id, author="load", actions=EventActions(state_delta=delta))
            )
            self.acked.append(event_id)
            await asyncio.sleep(0)

    async def progress(self, count: int, timeout: float = 90) -> None:
        """Wait until ``count`` more events are acknowledged."""
        target = len(self.acked) + count
        deadline = time.monotonic() + timeout
        while len(self.acked) < target:
            assert self._task is not None
            if self._task.done():
                self._task.result()
            assert time.monotonic() < deadline, "the load made no progress"
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        self._stop.set()
        assert self._task is not None
        await self._task


async def _check(store: Store, load: Load) -> None:
    async with store.open() as service:
        session = await service.get_session(
            app_name="fault", user_id="u", session_id=load.session.id
        )
    assert session is not None
    ids = [event.id for event in session.events]
    assert ids == load.acked, "stored events differ from the acknowledged ones"
    assert session.revision == len(ids)
    n = len(ids)
    assert (session.state["n"], session.state["user:n"], session.state["app:n"]) == (n, n, n)


@contextlib.asynccontextmanager
async def _loaded(store: Store) -> AsyncIterator[Load]:
    async with store.open() as service:
        load = await Load(service).start()
        try:
            await load.progress(5)
            yield load
            await load.progress(5)  # recovered, with the same service object
        finally:
            await load.stop()
    await _check(store, load)


async def _terminate_active(dsn: str, database: str, seconds: float) -> int:
    import asyncpg

    killer = await asyncpg.connect(dsn)
    terminated = 0
    try:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            terminated += await killer.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = $1 AND pid <> pg_backend_pid() "
                "AND state IN ('active', 'idle in transaction')",
                database,
            )
            await asyncio.sleep(0.01)
    finally:
        await killer.close()
    return int(terminated)


@needs["postgres"]
@pytest.mark.parametrize(
    "seconds",
    [pytest.param(2.0, id="short"), pytest.param(20.0, id="long", marks=pytest.mark.reliability)],
)
async def test_postgres_connection_terminated_mid_transaction(
    tmp_path: Path, seconds: float
) -> None:
    async with fresh_store("postgres", tmp_path) as store, _loaded(store) as load:
        database = store.url.rsplit("/", 1)[1]
        terminated = await _terminate_active(postgres_admin_dsn(), database, seconds)
        assert terminated > 0, "no append was in flight to terminate"
    assert load.unavailable > 0, "a terminated connection surfaced no BackendUnavailableError"


async def _postgres_store_on(url: str) -> Store:
    import asyncpg

    name = f"adkrt_fault_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(postgres_admin_dsn(url))
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return Store("postgres", f"{url.rsplit('/', 1)[0]}/{name}", {"auto_migrate": True})


@needs["postgres"]
@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "restarts",
    [pytest.param(1, id="short"), pytest.param(5, id="long", marks=pytest.mark.reliability)],
)
async def test_postgres_crash_restart_under_load(restarts: int) -> None:
    async with throwaway_postgres() as cluster:
        store = await _postgres_store_on(cluster.url)
        async with _loaded(store) as load:
            for _ in range(restarts):
                await cluster.stop("immediate")
                await asyncio.sleep(0.5)
                await cluster.start()
                await load.progress(5)
    assert load.unavailable > 0


@needs["redis"]
@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    "restarts",
    [pytest.param(1, id="short"), pytest.param(10, id="long", marks=pytest.mark.reliability)],
)
async def test_redis_kill_restart_under_load(restarts: int) -> None:
    async with throwaway_redis() as server:
        prefix = f"adkrt-fault-{uuid.uuid4().hex[:8]}:"
        store = Store("redis", server.url, {"key_prefix": prefix})
        async with _loaded(store) as load:
            for _ in range(restarts):
                await server.kill()
                await asyncio.sleep(0.5)
                await server.start()
                await load.progress(5)
        await drop_redis_prefix(server.url, prefix)
    assert load.unavailable > 0
