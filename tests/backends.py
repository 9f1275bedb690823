"""The session backends every contract and runner test runs on.

Each backend issue adds one entry to ``BACKENDS``; the suites use it through the
``session_service`` fixture unchanged. A backend's ``open`` yields a fresh, empty service and
removes everything it created afterwards. A server backend that cannot be reached fails its
tests (it is never skipped).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from adk_runtime.sessions import BaseSessionService, DatabaseSessionService, InMemorySessionService
from tests.sql_support import truncate_all

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


REDIS_URL = os.environ.get("ADK_RUNTIME_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def redis_test_prefix() -> str:
    """Return a fresh key prefix, unique to one test."""
    return f"adktest:{uuid.uuid4().hex}:"


async def drop_redis_prefix(prefix: str) -> None:
    """Delete every key under ``prefix`` (test cleanup only: it uses SCAN)."""
    import redis.asyncio as redis_asyncio

    async with redis_asyncio.Redis.from_url(REDIS_URL) as client:
        batch = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
        if batch:
            await client.unlink(*batch)


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


BACKENDS: list[Backend] = [
    Backend("memory", _open_memory),
    Backend("redis", _open_redis, durable=True),
    Backend("sqlite", _open_sqlite, durable=True),
    Backend("postgres", _open_postgres, durable=True),
]
