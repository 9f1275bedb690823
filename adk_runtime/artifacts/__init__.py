"""Artifact services (``google.adk.artifacts`` → ``adk_runtime.artifacts``)."""

from adk_runtime.artifacts.base import ArtifactVersion, BaseArtifactService
from adk_runtime.artifacts.file import FileArtifactService
from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.artifacts.registry import artifact_service_from_url, register_artifact_backend

__all__ = [
    "ArtifactVersion",
    "BaseArtifactService",
    "FileArtifactService",
    "InMemoryArtifactService",
    "artifact_service_from_url",
    "register_artifact_backend",
]
