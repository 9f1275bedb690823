"""Artifact services (``google.adk.artifacts`` → ``adk_runtime.artifacts``).

``DatabaseArtifactService`` (SQLAlchemy) is imported on first use.
"""

from typing import TYPE_CHECKING, Any

from adk_runtime.artifacts.base import ArtifactVersion, BaseArtifactService
from adk_runtime.artifacts.file import FileArtifactService
from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.artifacts.registry import artifact_service_from_url, register_artifact_backend

if TYPE_CHECKING:
    from adk_runtime.artifacts.database import DatabaseArtifactService

__all__ = [
    "ArtifactVersion",
    "BaseArtifactService",
    "DatabaseArtifactService",
    "FileArtifactService",
    "InMemoryArtifactService",
    "artifact_service_from_url",
    "register_artifact_backend",
]


def __getattr__(name: str) -> Any:
    if name == "DatabaseArtifactService":
        from adk_runtime.artifacts.database import DatabaseArtifactService

        return DatabaseArtifactService
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
