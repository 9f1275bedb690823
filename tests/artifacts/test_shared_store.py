"""Two service objects on one durable store (as two replicas would be) never share a version."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from google.genai import types

from adk_runtime.artifacts import artifact_service_from_url
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
