"""An artifact service that stores into the calling tool's session (for AgentTool)."""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_runtime.artifacts.base import ArtifactVersion, BaseArtifactService
from adk_runtime.core.tool_context import ToolContext

__all__ = ["ForwardingArtifactService"]


class ForwardingArtifactService(BaseArtifactService):
    """Saves and loads through ``tool_context``, whatever session the caller names.

    An agent run by ``AgentTool`` thus saves into the calling session, and each save is
    recorded in the calling tool's ``artifact_delta``.
    """

    def __init__(self, tool_context: ToolContext) -> None:
        """Forward to ``tool_context``."""
        self.tool_context = tool_context

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        artifact: types.Part | dict[str, Any],
        session_id: str | None = None,
        custom_metadata: dict[str, Any] | None = None,
    ) -> int:
        """Save into the calling session (recorded in the tool's ``artifact_delta``)."""
        part = artifact if isinstance(artifact, types.Part) else types.Part.model_validate(artifact)
        return await self.tool_context.save_artifact(
            filename=filename, artifact=part, custom_metadata=custom_metadata
        )

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> types.Part | None:
        """Load from the calling session."""
        return await self.tool_context.load_artifact(filename=filename, version=version)

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str | None = None
    ) -> list[str]:
        """List the calling session's artifacts."""
        return await self.tool_context.list_artifacts()

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        """Delete from the calling session."""
        context = self.tool_context
        await context._artifact_service().delete_artifact(
            filename=filename, **context._artifact_scope()
        )

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        """List the versions in the calling session."""
        context = self.tool_context
        return await context._artifact_service().list_versions(
            filename=filename, **context._artifact_scope()
        )

    async def list_artifact_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[ArtifactVersion]:
        """Describe the versions in the calling session."""
        context = self.tool_context
        return await context._artifact_service().list_artifact_versions(
            filename=filename, **context._artifact_scope()
        )

    async def get_artifact_version(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> ArtifactVersion | None:
        """Describe one version in the calling session."""
        return await self.tool_context.get_artifact_version(filename=filename, version=version)
