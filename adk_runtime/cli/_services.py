"""Build the artifact and memory services a command was configured with (by URL)."""

from __future__ import annotations

from adk_runtime._url_registry import is_sql_url
from adk_runtime.artifacts import BaseArtifactService, artifact_service_from_url
from adk_runtime.memory import BaseMemoryService, memory_service_from_url

__all__ = ["artifact_service_for", "default_artifact_url", "memory_service_for"]


def default_artifact_url(session_url: str) -> str:
    """Where artifacts go when no artifact URL is given.

    Next to the sessions when they live in a SQL database (same file or database, its own
    tables), else in memory.
    """
    return session_url if is_sql_url(session_url) else "memory://"


def artifact_service_for(url: str | None, session_url: str) -> BaseArtifactService:
    """The artifact service ``url`` names (default: see :func:`default_artifact_url`)."""
    return artifact_service_from_url(url or default_artifact_url(session_url))


def memory_service_for(url: str | None) -> BaseMemoryService | None:
    """The memory service ``url`` names (None: no memory service)."""
    return None if url is None else memory_service_from_url(url)
