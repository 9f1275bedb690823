"""What the google-adk integration tests share: the adapters on a fresh store, messages."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from google.genai import types

from adk_runtime.integrations.google_adk import DurableArtifactService, DurableSessionService
from tests.stores import served_store

APP = "durable_app"


def message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def artifact_uri(store_uri: str, tmp_path: Path) -> str:
    """Artifacts beside the sessions: in the SQL database, in a directory for Redis."""
    if store_uri.startswith(("adkrt+redis", "redis")):
        return "adkrt+" + (tmp_path / "artifacts").as_uri()
    return store_uri


@contextlib.asynccontextmanager
async def store_uri(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A fresh store on ``backend`` (migrated), as an ``adkrt+…`` URI."""
    async with served_store(backend, tmp_path) as url:
        yield "adkrt+" + url


@contextlib.asynccontextmanager
async def adapters(
    uri: str, tmp_path: Path
) -> AsyncIterator[tuple[DurableSessionService, DurableArtifactService]]:
    sessions = DurableSessionService(uri)
    artifacts = DurableArtifactService(artifact_uri(uri, tmp_path))
    try:
        yield sessions, artifacts
    finally:
        await sessions.close()
        await artifacts.close()
