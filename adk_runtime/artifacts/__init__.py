"""Artifact services (``google.adk.artifacts`` → ``adk_runtime.artifacts``)."""

from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.artifacts.memory import InMemoryArtifactService

__all__ = ["BaseArtifactService", "InMemoryArtifactService"]
