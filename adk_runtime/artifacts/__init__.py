"""Artifact services (``google.adk.artifacts`` → ``adk_runtime.artifacts``).

``DatabaseArtifactService`` (SQLAlchemy), ``SpannerArtifactService`` (the ``[spanner]`` extra)
are imported on first use, and so is
``GcsArtifactService``, google-adk's Google Cloud Storage store: the name is here so that code
importing it loads, and building one raises ``ConfigurationError``.
"""

from typing import TYPE_CHECKING

from adk_runtime._lazy import lazy_getattr
from adk_runtime.artifacts.base import ArtifactVersion, BaseArtifactService
from adk_runtime.artifacts.file import FileArtifactService
from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.artifacts.registry import artifact_service_from_url, register_artifact_backend

if TYPE_CHECKING:
    from adk_runtime.artifacts.database import DatabaseArtifactService
    from adk_runtime.artifacts.gcs_artifact_service import GcsArtifactService
    from adk_runtime.artifacts.spanner import SpannerArtifactService

__all__ = [
    "ArtifactVersion",
    "BaseArtifactService",
    "DatabaseArtifactService",
    "FileArtifactService",
    "GcsArtifactService",
    "InMemoryArtifactService",
    "SpannerArtifactService",
    "artifact_service_from_url",
    "register_artifact_backend",
]

__getattr__ = lazy_getattr(
    __name__,
    {
        "DatabaseArtifactService": "adk_runtime.artifacts.database",
        "GcsArtifactService": "adk_runtime.artifacts.gcs_artifact_service",
        "SpannerArtifactService": "adk_runtime.artifacts.spanner",
    },
)
