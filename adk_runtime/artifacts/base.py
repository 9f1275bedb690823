"""The ArtifactService contract: versioned binary parts per session (or per user).

Filenames starting with ``user:`` belong to the user (shared by all of that user's sessions in
the app) and are listed with their prefix; other filenames belong to the session. Versions
start at 0 and are never reused, also after a delete, so an event's ``artifact_delta`` never
points at different bytes later.
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, alias_generators

from adk_runtime.events import Event

__all__ = ["ArtifactVersion", "BaseArtifactService"]

USER_PREFIX = "user:"


class ArtifactVersion(BaseModel):
    """What is known about one stored version of an artifact.

    Attributes:
        version: The version number (0, 1, ...; never reused).
        canonical_uri: Where the stored payload lives (store-specific URI).
        custom_metadata: The metadata given to ``save_artifact``.
        create_time: When the version was saved (Unix seconds).
        mime_type: The MIME type of the payload, if known.
    """

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    version: int
    canonical_uri: str
    custom_metadata: dict[str, Any] = Field(default_factory=dict)
    create_time: float = 0.0
    mime_type: str | None = None


class BaseArtifactService(abc.ABC):
    """Stores versioned artifacts (google-genai ``Part`` values).

    ``session_id=None`` addresses the user's artifacts only: the filename must then start
    with ``user:``. Every method validates its arguments first and raises
    :class:`~adk_runtime.errors.InputValidationError` on bad input, writing nothing.
    """

    @abc.abstractmethod
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
        """Save a new version of ``filename`` and return its version number (first is 0)."""

    @abc.abstractmethod
    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> types.Part | None:
        """Return the given (default: latest) version of ``filename``, or None."""

    @abc.abstractmethod
    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str | None = None
    ) -> list[str]:
        """Return the session's and the user's artifact filenames, sorted.

        With ``session_id=None`` only the user's (``user:``) filenames are returned.
        """

    @abc.abstractmethod
    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        """Delete every version of ``filename`` (its version numbers are never reused)."""

    @abc.abstractmethod
    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        """Return the stored versions of ``filename``, ascending."""

    @abc.abstractmethod
    async def list_artifact_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[ArtifactVersion]:
        """Return what is known about each stored version of ``filename``, ascending."""

    @abc.abstractmethod
    async def get_artifact_version(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> ArtifactVersion | None:
        """Return what is known about one (default: the latest) version, or None."""

    async def fork_session_artifacts(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        new_session_id: str,
        events: Sequence[Event],
        position: int,
    ) -> None:
        """Copy the session's artifacts, as of a point of its history, into a new session.

        ``fork_session(..., artifact_service=…)`` calls it once the fork is written. Each
        session artifact is copied with every stored version up to the one current before
        ``events[position]`` (after the last event when ``position == len(events)``; see
        :mod:`adk_runtime.artifacts.history`), under the same version numbers, so every
        version the fork's history names loads in the fork. The copy is independent: a later
        save in either session does not change the other. ``user:`` artifacts are shared by
        the user's sessions and are not copied.

        Raises:
            AlreadyExistsError: The new session already has (or had) an artifact of that
                name; that artifact is not copied.
            NotImplementedError: The store cannot copy (the default).
        """
        raise NotImplementedError(f"{type(self).__name__} cannot copy a session's artifacts.")

    async def delete_session_artifacts(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[str]:
        """Delete every version of each of the session's own artifacts; return their names.

        ``delete_session(..., artifact_service=…)`` and ``prune_sessions(...,
        artifact_service=…)`` call it once the session is deleted, so a session created again
        under that id starts without the deleted conversation's files. ``user:`` artifacts
        belong to the user across sessions and stay. Like :meth:`delete_artifact`, version
        numbers are never reused. Nothing to delete is not an error (a retry finishes the
        job).

        Raises:
            InputValidationError: An id is malformed; nothing is deleted.
        """
        names = await self.list_artifact_keys(
            app_name=app_name, user_id=user_id, session_id=session_id
        )
        own = [name for name in names if not name.startswith(USER_PREFIX)]
        for filename in own:
            await self.delete_artifact(
                app_name=app_name, user_id=user_id, filename=filename, session_id=session_id
            )
        return own

    async def close(self) -> None:
        """Release what the service opened; the default has nothing."""
        return None

    async def __aenter__(self) -> BaseArtifactService:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()
