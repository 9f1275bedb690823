"""InMemoryArtifactService: versioned artifacts in process memory."""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from adk_runtime._url_registry import check_query_options
from adk_runtime.artifacts._store import ArtifactRecord, StoredArtifactService
from adk_runtime.artifacts._validation import ArtifactKey
from adk_runtime.errors import AlreadyExistsError

__all__ = ["InMemoryArtifactService"]


@dataclasses.dataclass
class _History:
    versions: dict[int, ArtifactRecord] = dataclasses.field(default_factory=dict)
    next_version: int = 0  # the high-water mark: never goes down, also after a delete


class InMemoryArtifactService(StoredArtifactService):
    """Artifacts in memory (for tests and prototypes); versions are never reused."""

    uri_scheme = "memory"

    def __init__(self) -> None:
        """Create an empty store."""
        self._lock = threading.Lock()
        self._artifacts: dict[ArtifactKey, _History] = {}

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> InMemoryArtifactService:
        """Build the store for ``memory://`` (takes no options: a query is refused)."""
        check_query_options(url, (), what="memory://")
        return cls(**kwargs)

    async def _save(self, key: ArtifactKey, record: ArtifactRecord) -> int:
        with self._lock:
            history = self._artifacts.setdefault(key, _History())
            version = history.next_version
            history.versions[version] = record.with_version(version)
            history.next_version = version + 1
            return version

    async def _load(self, key: ArtifactKey, version: int | None) -> ArtifactRecord | None:
        with self._lock:
            history = self._artifacts.get(key)
            if history is None or not history.versions:
                return None
            return history.versions.get(max(history.versions) if version is None else version)

    async def _versions(self, key: ArtifactKey) -> list[ArtifactRecord]:
        with self._lock:
            history = self._artifacts.get(key)
            versions = history.versions if history is not None else {}
            return [versions[number] for number in sorted(versions)]

    async def _delete(self, key: ArtifactKey) -> None:
        with self._lock:
            history = self._artifacts.get(key)
            if history is not None:
                history.versions.clear()

    async def _put_versions(self, key: ArtifactKey, records: list[ArtifactRecord]) -> None:
        with self._lock:
            if key in self._artifacts and self._artifacts[key].next_version:
                raise AlreadyExistsError(f"Artifact {key.filename!r} already has versions.")
            versions = {record.version: record for record in records}
            self._artifacts[key] = _History(versions, max(versions, default=-1) + 1)

    async def _list_keys(self, app_name: str, user_id: str, session_id: str | None) -> list[str]:
        scopes = {"", session_id} if session_id is not None else {""}
        with self._lock:
            return [
                key.filename
                for key, history in self._artifacts.items()
                if history.versions
                and (key.app_name, key.user_id) == (app_name, user_id)
                and key.scope in scopes
            ]
