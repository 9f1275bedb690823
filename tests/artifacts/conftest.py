"""One ``artifact_service`` fixture parametrized over every artifact store."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from adk_runtime.artifacts import BaseArtifactService, FileArtifactService, InMemoryArtifactService
from adk_runtime.artifacts.database import DatabaseArtifactService
from tests.sql_support import truncate_all

OpenStore = Callable[[Any], contextlib.AbstractAsyncContextManager[BaseArtifactService]]


@dataclasses.dataclass(frozen=True)
class ArtifactStore:
    """An artifact store under test: its marker name and how to open a fresh one."""

    name: str
    open: OpenStore

    def param(self) -> Any:
        return pytest.param(self, id=self.name, marks=[getattr(pytest.mark, self.name)])


@contextlib.asynccontextmanager
async def _open_memory(request: Any) -> AsyncIterator[BaseArtifactService]:
    async with InMemoryArtifactService() as service:
        yield service


@contextlib.asynccontextmanager
async def _open_file(request: Any) -> AsyncIterator[BaseArtifactService]:
    root = request.getfixturevalue("tmp_path") / "artifacts"
    async with FileArtifactService(root) as service:
        yield service


@contextlib.asynccontextmanager
async def _open_sqlite(request: Any) -> AsyncIterator[BaseArtifactService]:
    path = request.getfixturevalue("tmp_path") / "artifacts.db"
    async with DatabaseArtifactService(f"sqlite+aiosqlite:///{path}") as service:
        await service.prepare()
        yield service


@contextlib.asynccontextmanager
async def _open_postgres(request: Any) -> AsyncIterator[BaseArtifactService]:
    url = request.getfixturevalue("postgres_url")
    try:
        async with DatabaseArtifactService(url) as service:
            await service.prepare()
            yield service
    finally:
        await truncate_all(url)


@contextlib.asynccontextmanager
async def _open_spanner(request: Any) -> AsyncIterator[BaseArtifactService]:
    from adk_runtime.artifacts.spanner import SpannerArtifactService
    from tests.spanner_support import fresh_database

    emulator = request.getfixturevalue("spanner_emulator")
    async with (
        fresh_database(emulator) as database,
        SpannerArtifactService(database, emulator_host=emulator.host) as service,
    ):
        await service.prepare()
        yield service


STORES: list[ArtifactStore] = [
    ArtifactStore("memory", _open_memory),
    ArtifactStore("file", _open_file),
    ArtifactStore("sqlite", _open_sqlite),
    ArtifactStore("postgres", _open_postgres),
    ArtifactStore("spanner", _open_spanner),
]


@pytest.fixture(params=[store.param() for store in STORES])
def artifact_store(request: pytest.FixtureRequest) -> ArtifactStore:
    result: ArtifactStore = request.param
    return result


@pytest.fixture
async def artifact_service(
    artifact_store: ArtifactStore, request: pytest.FixtureRequest
) -> AsyncIterator[BaseArtifactService]:
    async with artifact_store.open(request) as service:
        yield service
