"""One ``memory_service`` fixture parametrized over every memory store."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from adk_runtime.memory import BaseMemoryService, InMemoryMemoryService
from adk_runtime.memory.database import DatabaseMemoryService
from tests.sql_support import truncate_all

OpenStore = Callable[[Any], contextlib.AbstractAsyncContextManager[BaseMemoryService]]


@dataclasses.dataclass(frozen=True)
class MemoryStore:
    name: str
    open: OpenStore

    def param(self) -> Any:
        return pytest.param(self, id=self.name, marks=[getattr(pytest.mark, self.name)])


@contextlib.asynccontextmanager
async def _open_memory(request: Any) -> AsyncIterator[BaseMemoryService]:
    service = InMemoryMemoryService()
    try:
        yield service
    finally:
        await service.close()


@contextlib.asynccontextmanager
async def _open_sqlite(request: Any) -> AsyncIterator[BaseMemoryService]:
    path = request.getfixturevalue("tmp_path") / "memory.db"
    service = DatabaseMemoryService(f"sqlite+aiosqlite:///{path}")
    try:
        await service.prepare()
        yield service
    finally:
        await service.close()


@contextlib.asynccontextmanager
async def _open_postgres(request: Any) -> AsyncIterator[BaseMemoryService]:
    url = request.getfixturevalue("postgres_url")
    service = DatabaseMemoryService(url)
    try:
        await service.prepare()
        yield service
    finally:
        await service.close()
        await truncate_all(url)


@contextlib.asynccontextmanager
async def _open_spanner(request: Any) -> AsyncIterator[BaseMemoryService]:
    from adk_runtime.memory.spanner import SpannerMemoryService
    from tests.spanner_support import fresh_database

    emulator = request.getfixturevalue("spanner_emulator")
    async with fresh_database(emulator) as database:
        service = SpannerMemoryService(database, emulator_host=emulator.host)
        try:
            await service.prepare()
            yield service
        finally:
            await service.close()


MEMORY_STORES: list[MemoryStore] = [
    MemoryStore("memory", _open_memory),
    MemoryStore("sqlite", _open_sqlite),
    MemoryStore("postgres", _open_postgres),
    MemoryStore("spanner", _open_spanner),
]


@pytest.fixture(params=[store.param() for store in MEMORY_STORES])
async def memory_service(request: pytest.FixtureRequest) -> AsyncIterator[BaseMemoryService]:
    store: MemoryStore = request.param
    async with store.open(request) as service:
        yield service
