"""Build the artifact and memory services a command was configured with (by URL)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import click

from adk_runtime._url_registry import is_sql_url, url_scheme
from adk_runtime.artifacts import BaseArtifactService, artifact_service_from_url
from adk_runtime.memory import BaseMemoryService, memory_service_from_url
from adk_runtime.sessions import BaseSessionService, session_service_from_url

__all__ = [
    "DEFAULT_ARTIFACT_DIR",
    "artifact_service_for",
    "default_artifact_url",
    "memory_service_for",
    "stores",
]

DEFAULT_ARTIFACT_DIR = Path(".adk_runtime") / "artifacts"
"""Where artifacts go, relative to the current directory, when sessions are in Redis."""


def default_artifact_url(session_url: str) -> str:
    """Where artifacts go when no artifact URL is given: as durable as the sessions.

    In the session database when it is SQL or Spanner (same file or database, its own tables,
    the session service's own options left out of the query); in ``./.adk_runtime/artifacts``
    (a ``file://`` store) for any other durable store (Redis); in memory only when the sessions
    are in memory too.
    """
    if is_sql_url(session_url):
        from adk_runtime.sql.pool import take_query_option
        from adk_runtime.sql.url import SESSION_OPTIONS

        for name in SESSION_OPTIONS:
            session_url, _ = take_query_option(session_url, name)
        return session_url
    if url_scheme(session_url) == "spanner":
        from adk_runtime.sessions.spanner.store import store_url

        return store_url(session_url)
    if url_scheme(session_url) == "memory":
        return "memory://"
    return DEFAULT_ARTIFACT_DIR.resolve().as_uri()


def artifact_service_for(url: str | None, session_url: str) -> BaseArtifactService:
    """The artifact service ``url`` names (default: see :func:`default_artifact_url`).

    A default that is not the session database is announced in one line on stderr, so
    nobody has to guess where the artifacts are.
    """
    if url is None:
        url = default_artifact_url(session_url)
        if url.startswith("file:"):
            click.echo(f"artifacts: {url} (set --artifact-url to keep them elsewhere)", err=True)
    return artifact_service_from_url(url)


def memory_service_for(url: str | None) -> BaseMemoryService | None:
    """The memory service ``url`` names (None: no memory service)."""
    return None if url is None else memory_service_from_url(url)


@contextlib.asynccontextmanager
async def stores(
    session_url: str, artifact_url: str | None
) -> AsyncIterator[tuple[BaseSessionService, BaseArtifactService]]:
    """The session service ``session_url`` names and the artifact service beside it.

    The artifact service is :func:`artifact_service_for` ``artifact_url``; both are closed
    when the block ends.
    """
    async with (
        session_service_from_url(session_url) as sessions,
        artifact_service_for(artifact_url, session_url) as artifacts,
    ):
        yield sessions, artifacts
