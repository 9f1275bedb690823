"""The ArtifactService contract: versioned binary parts per session (or per user).

Filenames starting with ``user:`` belong to the user (shared by all of that user's sessions in
the app) and are listed with their prefix; other filenames belong to the session. Versions
start at 0 and are never reused, also after a delete, so an event's ``artifact_delta`` never
points at different bytes later.
"""

from __future__ import annotations

import abc

from google.genai import types

__all__ = ["BaseArtifactService"]

USER_PREFIX = "user:"


class BaseArtifactService(abc.ABC):
    """Stores versioned artifacts (google-genai ``Part`` values)."""

    @abc.abstractmethod
    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        artifact: types.Part,
    ) -> int:
        """Save a new version of ``filename`` and return its version number."""

    @abc.abstractmethod
    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        version: int | None = None,
    ) -> types.Part | None:
        """Return the given (default: latest) version of ``filename``, or None."""

    @abc.abstractmethod
    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[str]:
        """Return the session's and the user's artifact filenames, sorted."""

    @abc.abstractmethod
    async def delete_artifact(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> None:
        """Delete every version of ``filename`` (its version numbers are never reused)."""

    @abc.abstractmethod
    async def list_versions(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> list[int]:
        """Return the stored versions of ``filename``, ascending."""

    async def close(self) -> None:
        """Release what the service opened; the default has nothing."""
        return None
