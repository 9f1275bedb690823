"""``DurableArtifactService``: a google-adk artifact service over an adk_runtime store."""

from __future__ import annotations

from typing import Any

from google.adk.artifacts.base_artifact_service import ArtifactVersion as GoogleVersion
from google.adk.artifacts.base_artifact_service import BaseArtifactService as GoogleBase
from google.genai import types

from adk_runtime.artifacts import BaseArtifactService, artifact_service_from_url
from adk_runtime.artifacts.base import ArtifactVersion
from adk_runtime.integrations.google_adk._errors import google_errors_of
from adk_runtime.integrations.google_adk._uri import check_one_source, store_url

__all__ = ["DurableArtifactService"]


class DurableArtifactService(GoogleBase):
    """google-adk's ``BaseArtifactService`` over any adk_runtime artifact store.

    Args:
        uri: The store: ``adkrt+sqlite+aiosqlite:///app.db``, ``adkrt+postgresql+asyncpg://…``,
            ``adkrt+file:///dir`` (or the same URL without ``adkrt+``).
        service: An adk_runtime artifact service object to use instead (not closed by
            :meth:`close`).
        agents_dir: Ignored (google-adk's service registry passes it to every factory).
        **options: Passed to :func:`adk_runtime.artifacts.artifact_service_from_url`.
    """

    def __init__(
        self,
        uri: str | None = None,
        *,
        service: BaseArtifactService | None = None,
        agents_dir: str | None = None,
        **options: Any,
    ) -> None:
        """Open nothing yet: the store is reached on first use."""
        check_one_source("Artifact", uri, service)
        self._owns = service is None
        self._service = service or artifact_service_from_url(store_url(uri or ""), **options)

    @property
    def service(self) -> BaseArtifactService:
        """The adk_runtime artifact service underneath."""
        return self._service

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

    async def close(self) -> None:
        """Close the adk_runtime service (when this object opened it from a URI)."""
        if self._owns:
            await self._service.close()


def _google_version(version: ArtifactVersion) -> GoogleVersion:
    return GoogleVersion.model_validate(version.model_dump())
