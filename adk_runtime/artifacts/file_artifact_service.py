"""``google.adk.artifacts.file_artifact_service`` → here: artifacts as files in a directory."""

from adk_runtime.artifacts.file import FileArtifactService, FileArtifactVersion

__all__ = ["FileArtifactService", "FileArtifactVersion"]
