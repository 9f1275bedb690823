"""Artifact services (``google.adk.artifacts`` → ``adk_runtime.artifacts``).

``DatabaseArtifactService`` (SQLAlchemy) is imported on first use.
"""

from typing import TYPE_CHECKING

from adk_runtime._lazy import lazy_getattr
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

__getattr__ = lazy_getattr(__name__, {"DatabaseArtifactService": "adk_runtime.artifacts.database"})
