"""Artifact storage by configuration: one URL picks the artifact store.

| URL | store |
|---|---|
| ``memory://`` | :class:`~adk_runtime.artifacts.InMemoryArtifactService` |
| ``file:///abs/dir`` | :class:`~adk_runtime.artifacts.FileArtifactService` |
| ``sqlite+aiosqlite:///x.db``, ``postgresql+asyncpg://…`` | ``DatabaseArtifactService`` |
| ``spanner:///projects/P/instances/I/databases/D`` | ``SpannerArtifactService`` |
"""

from __future__ import annotations

from typing import Any

from adk_runtime._url_registry import SQL_SCHEMES, UrlRegistry
from adk_runtime.artifacts.base import BaseArtifactService

__all__ = ["artifact_service_from_url", "register_artifact_backend", "supported_schemes"]

_DATABASE = "adk_runtime.artifacts.database:DatabaseArtifactService"

_REGISTRY: UrlRegistry[BaseArtifactService] = UrlRegistry(
    "artifact service",
    {
        "memory": ("adk_runtime.artifacts.memory:InMemoryArtifactService", "adk-runtime"),
        "file": ("adk_runtime.artifacts.file:FileArtifactService", "adk-runtime"),
        **{scheme: (_DATABASE, "adk-runtime") for scheme in SQL_SCHEMES},
        "spanner": ("adk_runtime.artifacts.spanner:SpannerArtifactService", "adk-runtime[spanner]"),
    },
)

register_artifact_backend = _REGISTRY.register
"""Map a URL scheme to ``"module:Class"`` (the class needs a ``from_url`` class method)."""
supported_schemes = _REGISTRY.schemes
"""Return the URL schemes an artifact service can be built from, sorted."""


def artifact_service_from_url(url: str, **kwargs: Any) -> BaseArtifactService:
    """Build the artifact service a URL names.

    Args:
        url: ``memory://``, ``file:///dir``, ``sqlite+aiosqlite:///path.db``,
            ``postgresql+asyncpg://…`` or ``spanner:///projects/P/instances/I/databases/D``.
        **kwargs: Passed to the store's constructor (e.g. ``auto_migrate=True``).

    Raises:
        ConfigurationError: The scheme is unknown or its store cannot be imported.
    """
    return _REGISTRY.build(url, **kwargs)
