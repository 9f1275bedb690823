"""The session backends every contract and runner test runs on (``session_service``).

``BACKENDS`` lists them; a backend's ``open`` yields a fresh, empty service and removes
everything it created afterwards (PostgreSQL: one database per run, emptied after each test,
which is much faster than a database per test). Servers and helpers come from
:mod:`tests.stores`; a server that cannot be reached fails its tests (never a skip).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

from adk_runtime.sessions import BaseSessionService, DatabaseSessionService, InMemorySessionService
from tests.sql_support import truncate_all
from tests.stores import REDIS_URL, redis_test_prefix
from tests.stores import drop_redis_prefix as drop_prefix

BLOCKBUSTER: Any = None
"""The blocking-call detector of the running test, if any (set by ``tests/conftest.py``)."""

OpenService = Callable[[Any], contextlib.AbstractAsyncContextManager[BaseSessionService]]


@dataclasses.dataclass(frozen=True)
class Backend:
    """A backend under test.

    Attributes:
        name: Test id and marker name.
        open: ``open(request)`` → async context manager yielding a fresh service.
        durable: Whether two service objects (or processes) can share the store via ``url``.
    """

    name: str
    open: OpenService
    durable: bool = False

    def param(self) -> Any:
        return pytest.param(self, id=self.name, marks=[getattr(pytest.mark, self.name)])


@contextlib.asynccontextmanager
async def _open_memory(request: Any) -> AsyncIterator[BaseSessionService]:
    async with InMemorySessionService() as service:
        yield service


async def drop_redis_prefix(prefix: str) -> None:
    """Delete every key under ``prefix`` on the test Redis (test cleanup only: it uses SCAN)."""
    await drop_prefix(REDIS_URL, prefix)


@contextlib.asynccontextmanager
async def _open_redis(request: Any) -> AsyncIterator[BaseSessionService]:
    from adk_runtime.sessions import RedisSessionService

    prefix = redis_test_prefix()
    try:
        async with RedisSessionService(REDIS_URL, key_prefix=prefix) as service:
            yield service
    finally:
        await drop_redis_prefix(prefix)


@contextlib.asynccontextmanager
async def _open_sqlite(request: Any) -> AsyncIterator[BaseSessionService]:
    path = request.getfixturevalue("tmp_path") / "sessions.db"
    async with DatabaseSessionService(f"sqlite+aiosqlite:///{path}") as service:
        await service.prepare()
        yield service


@contextlib.asynccontextmanager
async def _open_redis_cluster(request: Any) -> AsyncIterator[BaseSessionService]:
    from adk_runtime.sessions import RedisSessionService

    url = request.getfixturevalue("redis_cluster").url
    prefix = redis_test_prefix()
    try:
        async with RedisSessionService(url, key_prefix=prefix) as service:
            yield service
    finally:
        await drop_cluster_prefix(url, prefix)


async def drop_cluster_prefix(url: str, prefix: str) -> None:
    """Delete every key under ``prefix`` on a Redis Cluster (SCAN on every primary)."""
    from redis.asyncio.cluster import RedisCluster

    client = RedisCluster.from_url(url.replace("redis+cluster://", "redis://"))
    try:
        async for key in client.scan_iter(match=f"{prefix}*", count=1000):
            await client.delete(key)
    finally:
        await client.aclose()


_OPEN_POSTGRES: dict[str, int] = {}


@contextlib.asynccontextmanager
async def _open_postgres(request: Any) -> AsyncIterator[BaseSessionService]:
    # Every open in one test reaches the run's database; the outermost one empties it after.
    url = request.getfixturevalue("postgres_url")
    test = request.node.nodeid
    _OPEN_POSTGRES[test] = _OPEN_POSTGRES.get(test, 0) + 1
    try:
        async with DatabaseSessionService(url) as service:
            await service.prepare()
            yield service
    finally:
        _OPEN_POSTGRES[test] -= 1
        if not _OPEN_POSTGRES[test]:
            del _OPEN_POSTGRES[test]
            await truncate_all(url)


@contextlib.asynccontextmanager
async def _open_spanner(request: Any) -> AsyncIterator[BaseSessionService]:
    from adk_runtime.sessions.spanner import SpannerSessionService
    from tests.spanner_support import fresh_database

    emulator = request.getfixturevalue("spanner_emulator")
    async with (
        fresh_database(emulator) as database,
        SpannerSessionService(database, emulator_host=emulator.host) as service,
    ):
        await service.prepare()
        yield service


BACKENDS: list[Backend] = [
    Backend("memory", _open_memory),
    Backend("redis", _open_redis, durable=True),
    Backend("redis_cluster", _open_redis_cluster, durable=True),
    Backend("sqlite", _open_sqlite, durable=True),
    Backend("postgres", _open_postgres, durable=True),
    Backend("spanner", _open_spanner, durable=True),
]


@contextlib.contextmanager
def _blocking_allowed() -> Iterator[None]:
    detector = BLOCKBUSTER
    if detector is None:
        yield
        return
    detector.deactivate()
    try:
        yield
    finally:
        detector.activate()


@contextlib.asynccontextmanager
async def twin(service: BaseSessionService) -> AsyncIterator[BaseSessionService]:
    """A second service object on the same store as ``service`` (as another replica has).

    The in-memory store has no second door: its twin is the service itself.
    """
    if isinstance(service, InMemorySessionService):
        yield service
        return
    if isinstance(service, DatabaseSessionService):
        db = await service._open()
        with _blocking_allowed():  # opening (like the fixture's service) reads files
            other = DatabaseSessionService(db.url)
            await other.prepare()
        async with other:
            yield other
        return
    from adk_runtime.sessions.spanner import SpannerSessionService

    if isinstance(service, SpannerSessionService):
        async with SpannerSessionService(
            service.database, emulator_host=service._emulator_host
        ) as other:
            yield other
        return
    from adk_runtime.sessions import RedisSessionService

    assert isinstance(service, RedisSessionService)
    async with RedisSessionService(service._url, key_prefix=service._prefix) as other:
        yield other


def _is_spanner(service: BaseSessionService) -> bool:
    return type(service).__name__ == "SpannerSessionService"


async def overwrite_stored_event(
    service: BaseSessionService,
    key: tuple[str, str, str],
    position: int,
    payload: str,
) -> None:
    """Overwrite the stored JSON of event ``position`` (0-based) of session ``key`` (app,
    user, session id) behind the service's back, as someone with write access to the store
    could."""
    app, user, session_id = key
    if isinstance(service, InMemorySessionService):
        stored = service._sessions[key].events[position]
        stored.json, stored.decoded = payload, None
    elif isinstance(service, DatabaseSessionService):
        from sqlalchemy import text

        db = await service._open()
        async with db.write() as connection:
            await connection.execute(
                text(
                    "UPDATE adk_events SET payload = :p "
                    "WHERE app_name = :a AND user_id = :u AND session_id = :s AND sequence = :n"
                ),
                {"p": payload, "a": app, "u": user, "s": session_id, "n": position + 1},
            )
    elif _is_spanner(service):
        from adk_runtime.sessions.spanner._link import Write
        from adk_runtime.sessions.spanner._values import Blob

        columns = ("app_name", "user_id", "session_id", "sequence", "payload")
        write = Write(
            "update", "adk_events", columns, (app, user, session_id, position + 1, Blob(payload))
        )
        await service._link.write("overwriting an event", [write])  # type: ignore[attr-defined]
    else:
        from adk_runtime.sessions import RedisSessionService

        assert isinstance(service, RedisSessionService), type(service)
        await service._link.client.lset(
            service._keys(app, user, session_id).events, position, payload
        )
