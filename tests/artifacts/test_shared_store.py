"""Several service objects on one store: replicas never share a version; one shared engine."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from adk_runtime.artifacts import artifact_service_from_url
from adk_runtime.artifacts.database import DatabaseArtifactService
from adk_runtime.errors import ConfigurationError
from adk_runtime.memory.database import DatabaseMemoryService
from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.sql import create_engine
from adk_runtime.testing import text_event
from tests.sql_support import truncate_all

WHERE = {"app_name": "app", "user_id": "alice", "session_id": "s1", "filename": "log.txt"}


@pytest.fixture(
    params=[
        pytest.param("file", marks=pytest.mark.file),
        pytest.param("sqlite", marks=pytest.mark.sqlite),
        pytest.param("postgres", marks=pytest.mark.postgres),
    ]
)
async def store_url(request: pytest.FixtureRequest) -> AsyncIterator[str]:
    tmp_path = request.getfixturevalue("tmp_path")
    if request.param == "file":
        yield f"file://{tmp_path}/store"
    elif request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
        try:
            yield url
        finally:
            await truncate_all(url)


async def test_two_services_on_one_store_get_distinct_versions(store_url: str) -> None:
    first, second = artifact_service_from_url(store_url), artifact_service_from_url(store_url)
    try:
        saves = [
            service.save_artifact(artifact=types.Part(text=f"line {i}"), **WHERE)
            for i in range(12)
            for service in (first, second)
        ]
        versions = await asyncio.gather(*saves)
        assert sorted(versions) == list(range(24))
        await first.delete_artifact(**WHERE)
        assert await second.save_artifact(artifact=types.Part(text="after"), **WHERE) == 24
        loaded = await first.load_artifact(**WHERE)
        assert loaded is not None
        assert loaded.text == "after"
    finally:
        await first.close()
        await second.close()


@pytest.mark.sqlite
async def test_sessions_artifacts_and_memory_share_one_engine(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'app.db'}")
    try:
        async with DatabaseSessionService(db_engine=engine) as sessions:
            session = await sessions.create_session(app_name="app", user_id="alice")
            await sessions.append_event(session, text_event("the spare key is under the mat"))
        async with DatabaseArtifactService(db_engine=engine) as artifacts:
            where = {**WHERE, "session_id": session.id}
            assert await artifacts.save_artifact(artifact=types.Part(text="k"), **where) == 0
        memory = DatabaseMemoryService(db_engine=engine)
        await memory.add_session_to_memory(session)
        found = await memory.search_memory(app_name="app", user_id="alice", query="key")
        assert [entry.id for entry in found.memories] == [session.events[0].id]
        await memory.close()
        # The services did not dispose the caller's engine.
        async with engine.connect() as connection:
            assert (await connection.exec_driver_sql("SELECT 1")).scalar_one() == 1
    finally:
        await engine.dispose()


@pytest.mark.parametrize("kwargs", [{}, {"db_url": "sqlite://", "db_engine": "engine"}])
def test_exactly_one_of_url_or_engine(kwargs: dict[str, Any]) -> None:
    for service in (DatabaseArtifactService, DatabaseMemoryService):
        with pytest.raises(ConfigurationError, match=r"(?i)exactly one"):
            service(**kwargs)
