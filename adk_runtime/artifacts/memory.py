"""InMemoryArtifactService: versioned artifacts in process memory."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from google.genai import types

from adk_runtime.artifacts._validation import validate_artifact_key, validate_version
from adk_runtime.artifacts.base import USER_PREFIX, BaseArtifactService
from adk_runtime.sessions._validation import validate_session_key

__all__ = ["InMemoryArtifactService"]

_Key = tuple[str, str, str, str]  # app, user, scope (session id or "" for user:), filename


@dataclasses.dataclass
class _History:
    versions: dict[int, str] = dataclasses.field(default_factory=dict)  # version -> Part JSON
    next_version: int = 0


class InMemoryArtifactService(BaseArtifactService):
    """Artifacts in memory; versions are never reused, also after a delete."""

    def __init__(self) -> None:
        """Create an empty store."""
        self._lock = threading.Lock()
        self._artifacts: dict[_Key, _History] = {}

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> InMemoryArtifactService:
        """Build the store for ``memory://``."""
        return cls(**kwargs)

    async def save_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        artifact: types.Part,
    ) -> int:
        """Save a new version; see :meth:`BaseArtifactService.save_artifact`."""
        validate_artifact_key(app_name, user_id, session_id, filename)
        stored = artifact.model_dump_json(by_alias=True, exclude_none=True)
        with self._lock:
            history = self._artifacts.setdefault(
                _key(app_name, user_id, session_id, filename), _History()
            )
            version = history.next_version
            history.versions[version] = stored
            history.next_version = version + 1
            return version

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        filename: str,
        version: int | None = None,
    ) -> types.Part | None:
        """Load a version; see :meth:`BaseArtifactService.load_artifact`."""
        validate_artifact_key(app_name, user_id, session_id, filename)
        validate_version(version)
        with self._lock:
            history = self._artifacts.get(_key(app_name, user_id, session_id, filename))
            if history is None or not history.versions:
                return None
            chosen = max(history.versions) if version is None else version
            stored = history.versions.get(chosen)
        return None if stored is None else types.Part.model_validate_json(stored)

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str
    ) -> list[str]:
        """List filenames; see :meth:`BaseArtifactService.list_artifact_keys`."""
        validate_session_key(app_name, user_id, session_id)
        with self._lock:
            return sorted(
                key[3]
                for key, history in self._artifacts.items()
                if history.versions
                and key[:2] == (app_name, user_id)
                and key[2] in (session_id, "")
            )

    async def delete_artifact(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> None:
        """Delete every version; see :meth:`BaseArtifactService.delete_artifact`."""
        validate_artifact_key(app_name, user_id, session_id, filename)
        with self._lock:
            history = self._artifacts.get(_key(app_name, user_id, session_id, filename))
            if history is not None:
                history.versions.clear()

    async def list_versions(
        self, *, app_name: str, user_id: str, session_id: str, filename: str
    ) -> list[int]:
        """List versions; see :meth:`BaseArtifactService.list_versions`."""
        validate_artifact_key(app_name, user_id, session_id, filename)
        with self._lock:
            history = self._artifacts.get(_key(app_name, user_id, session_id, filename))
            return sorted(history.versions) if history is not None else []


def _key(app_name: str, user_id: str, session_id: str, filename: str) -> _Key:
    scope = "" if filename.startswith(USER_PREFIX) else session_id
    return (app_name, user_id, scope, filename)
