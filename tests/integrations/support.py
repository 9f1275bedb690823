"""What the google-adk integration tests share: the adapters on a fresh store, messages."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from google.genai import types

from adk_runtime._url_registry import url_scheme
from adk_runtime.artifacts import registry as artifact_registry
from adk_runtime.integrations.google_adk import DurableArtifactService, DurableSessionService
from adk_runtime.integrations.google_adk._uri import store_url
from tests.stores import served_store

APP = "durable_app"


def message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def artifact_uri(store_uri: str, tmp_path: Path) -> str:
    """Artifacts beside the sessions: in the store when it has an artifact store (SQL), else in
    a directory (Redis, Spanner)."""
    if url_scheme(store_url(store_uri)) not in artifact_registry.supported_schemes():
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
