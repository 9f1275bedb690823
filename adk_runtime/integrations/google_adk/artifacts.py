"""``DurableArtifactService``: a google-adk artifact service over an adk_runtime store."""

from __future__ import annotations

from typing import Any

from google.adk.artifacts.base_artifact_service import ArtifactVersion as GoogleVersion
from google.adk.artifacts.base_artifact_service import BaseArtifactService as GoogleBase
from google.genai import types

from adk_runtime.artifacts import BaseArtifactService, artifact_service_from_url
from adk_runtime.artifacts.base import ArtifactVersion
from adk_runtime.integrations.google_adk._adapter import DurableAdapter
from adk_runtime.integrations.google_adk._errors import google_errors_of

__all__ = ["DurableArtifactService"]


class DurableArtifactService(DurableAdapter[BaseArtifactService], GoogleBase):
    """google-adk's ``BaseArtifactService`` over any adk_runtime artifact store.

    Args:
        uri: The store: ``adkrt+sqlite+aiosqlite:///app.db``, ``adkrt+postgresql+asyncpg://…``,
            ``adkrt+file:///dir`` (or the same URL without ``adkrt+``).
        service: An adk_runtime artifact service object to use instead (not closed by
            :meth:`close`).
        agents_dir: Ignored (google-adk's service registry passes it to every factory).
        **options: Passed to :func:`adk_runtime.artifacts.artifact_service_from_url`.
    """

    _kind = "Artifact"

    def _open(self, url: str, **options: Any) -> BaseArtifactService:
        return artifact_service_from_url(url, **options)

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
        """Save a new version of ``filename``; return its version (the first is 0)."""
        with google_errors_of():
            return await self._service.save_artifact(
                app_name=app_name,
                user_id=user_id,
                filename=filename,
                artifact=artifact,
                session_id=session_id,
                custom_metadata=custom_metadata,
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
        """The given (default: latest) version of ``filename``, or None."""
        with google_errors_of():
            return await self._service.load_artifact(
                app_name=app_name,
                user_id=user_id,
                filename=filename,
                session_id=session_id,
                version=version,
            )

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str | None = None
    ) -> list[str]:
        """The session's and the user's artifact filenames."""
        with google_errors_of():
            return await self._service.list_artifact_keys(
                app_name=app_name, user_id=user_id, session_id=session_id
            )

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        """Delete every version of ``filename``."""
        with google_errors_of():
            await self._service.delete_artifact(
                app_name=app_name, user_id=user_id, filename=filename, session_id=session_id
            )

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        """The stored versions of ``filename``, ascending."""
        with google_errors_of():
            return await self._service.list_versions(
                app_name=app_name, user_id=user_id, filename=filename, session_id=session_id
            )

    async def list_artifact_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[GoogleVersion]:
        """What is known about each stored version of ``filename``, ascending."""
        with google_errors_of():
            found = await self._service.list_artifact_versions(
                app_name=app_name, user_id=user_id, filename=filename, session_id=session_id
            )
        return [_google_version(version) for version in found]

    async def get_artifact_version(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> GoogleVersion | None:
        """What is known about one (default: the latest) version, or None."""
        with google_errors_of():
            found = await self._service.get_artifact_version(
                app_name=app_name,
                user_id=user_id,
                filename=filename,
                session_id=session_id,
                version=version,
            )
        return None if found is None else _google_version(found)


def _google_version(version: ArtifactVersion) -> GoogleVersion:
    return GoogleVersion.model_validate(version.model_dump())
