"""artifact_service_from_url and memory_service_from_url."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from adk_runtime.artifacts import (
    FileArtifactService,
    InMemoryArtifactService,
    artifact_service_from_url,
)
from adk_runtime.errors import ConfigurationError
from adk_runtime.memory import InMemoryMemoryService, memory_service_from_url


def test_memory_urls() -> None:
    assert isinstance(artifact_service_from_url("memory://"), InMemoryArtifactService)
    assert isinstance(memory_service_from_url("memory://"), InMemoryMemoryService)


@pytest.mark.parametrize("factory", [artifact_service_from_url, memory_service_from_url])
def test_unknown_scheme_lists_the_supported_ones_and_hides_the_password(factory: Any) -> None:
    with pytest.raises(ConfigurationError) as info:
        factory("mysql://bob:hunter2@db.example/x")
    message = str(info.value)
    assert "hunter2" not in message
    assert "bob:***@" in message
    assert "memory" in message
    assert "sqlite" in message
    assert "postgresql" in message


@pytest.mark.parametrize("url", ["not a url", "", None, "/tmp/x.db"])
@pytest.mark.parametrize("factory", [artifact_service_from_url, memory_service_from_url])
def test_not_a_url(factory: Any, url: Any) -> None:
    with pytest.raises(ConfigurationError, match="memory://"):
        factory(url)


def test_file_urls_are_for_artifacts_only() -> None:
    with pytest.raises(ConfigurationError, match="Supported schemes"):
        memory_service_from_url("file:///tmp/x")


def test_file_url_without_a_path() -> None:
    with pytest.raises(ConfigurationError, match="names no directory"):
        artifact_service_from_url("file://")


@pytest.mark.parametrize(
    "url", ["sqlite+aiosqlite:///unused.db", "sqlite:///unused.db", "postgresql://u:pw@h/db"]
)
async def test_sql_urls_build_the_database_services(url: str) -> None:
    from adk_runtime.artifacts import DatabaseArtifactService
    from adk_runtime.memory import DatabaseMemoryService

    artifacts = artifact_service_from_url(url)
    memory = memory_service_from_url(url, max_results=5)
    try:
        assert isinstance(artifacts, DatabaseArtifactService)
        assert isinstance(memory, DatabaseMemoryService)
        assert memory.max_results == 5
    finally:
        await artifacts.close()
        await memory.close()


@pytest.mark.parametrize(
    ("url", "root"),
    [
        ("file:///srv/art%20ifacts", "/srv/art ifacts"),
        ("file://localhost/srv/a", "/srv/a"),
        ("file://./rel/dir", "rel/dir"),
    ],
)
def test_file_url_forms(url: str, root: str) -> None:
    service = artifact_service_from_url(url)
    assert isinstance(service, FileArtifactService)
    assert service.root_dir == Path(root).absolute()


def test_file_url_with_a_remote_host_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="remote host"):
        artifact_service_from_url("file://fileserver/share")
