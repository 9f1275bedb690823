"""Artifact services (``google.adk.artifacts`` → ``adk_runtime.artifacts``)."""

from adk_runtime.artifacts.base import BaseArtifactService

__all__ = ["BaseArtifactService"]
