"""``google.adk.artifacts.in_memory_artifact_service`` → here: the in-process artifact store."""

from adk_runtime.artifacts.memory import InMemoryArtifactService

__all__ = ["InMemoryArtifactService"]
