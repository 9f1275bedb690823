"""One ``memory_service`` fixture parametrized over every memory store."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from adk_runtime.memory import BaseMemoryService, InMemoryMemoryService

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


MEMORY_STORES: list[MemoryStore] = [
    MemoryStore("memory", _open_memory),
]


@pytest.fixture(params=[store.param() for store in MEMORY_STORES])
async def memory_service(request: pytest.FixtureRequest) -> AsyncIterator[BaseMemoryService]:
    store: MemoryStore = request.param
    async with store.open(request) as service:
        yield service
