"""The shared half of every artifact store: validation, the stored record, the public API.

A store implements five small hooks on :class:`ArtifactKey` values that are already
validated; :class:`StoredArtifactService` turns them into the ADK methods. A ``Part`` is
stored as a record: the raw inline bytes (``data``, a BLOB on SQL, a file on disk) and the
rest of the part as JSON (``part_json``, the bytes left out), with its MIME type, size,
creation time and custom metadata beside it. Nothing is pickled.
"""

from __future__ import annotations

import abc
import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from google.genai import types
from pydantic import ValidationError

from adk_runtime import codec
from adk_runtime.artifacts import artifact_util
from adk_runtime.artifacts._validation import (
    ArtifactKey,
    artifact_key,
    validate_scope,
    validate_version,
)
from adk_runtime.artifacts.base import USER_PREFIX, ArtifactVersion, BaseArtifactService
from adk_runtime.artifacts.history import HistoryPoint, is_rewind_tombstone
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.platform import time as platform_time

__all__ = ["ArtifactRecord", "StoredArtifactService", "decode_part", "encode_part"]

_UNSTORABLE = re.compile(r"[\x00\ud800-\udfff]")  # no database text column takes these


@dataclasses.dataclass(frozen=True)
class ArtifactRecord:
    """One stored version: the inline bytes and everything else about the part."""

    part_json: str
    data: bytes
    mime_type: str | None
    size: int
    create_time: float
    metadata_json: str = "{}"
    version: int = -1

    def with_version(self, version: int) -> ArtifactRecord:
        """Return the same record numbered ``version``."""
        return dataclasses.replace(self, version=version)

    def info(self, uri: str) -> ArtifactVersion:
        """Return the public description of this version."""
        metadata = codec.decode_value(codec.loads(self.metadata_json))
        return ArtifactVersion(
            version=self.version,
            canonical_uri=uri,
            custom_metadata=metadata,
            create_time=self.create_time,
            mime_type=self.mime_type,
        )


def _as_part(artifact: Any) -> types.Part:
    if isinstance(artifact, types.Part):
        return artifact
    if isinstance(artifact, dict):
        try:
            return types.Part.model_validate(artifact)
        except ValidationError as exc:
            message = exc.errors()[0]["msg"]
            raise InputValidationError(f"artifact is not a valid Part: {message}") from None
    raise InputValidationError(f"artifact must be a types.Part, not {type(artifact).__name__}.")


def encode_part(artifact: Any, custom_metadata: dict[str, Any] | None) -> ArtifactRecord:
    """Split a part into its stored record (raises InputValidationError/SerializationError)."""
    part = _as_part(artifact)
    blob, text, file_data = part.inline_data, part.text, part.file_data
    if blob is None and text is None and file_data is None:
        raise InputValidationError("artifact must carry inline_data, text or file_data.")
    if custom_metadata is not None and not isinstance(custom_metadata, dict):
        raise InputValidationError("custom_metadata must be a dict.")
    metadata_json = codec.dumps(codec.encode_value(custom_metadata or {}, "custom_metadata"))
    data = b""
    if blob is not None:
        data = bytes(blob.data or b"")
        part = part.model_copy(update={"inline_data": blob.model_copy(update={"data": None})})
        mime_type, size = blob.mime_type, len(data)
    elif text is not None:
        mime_type, size = "text/plain", len(text.encode("utf-8", "replace"))
    else:
        assert file_data is not None
        mime_type, size = file_data.mime_type, 0
    if mime_type is not None and _UNSTORABLE.search(mime_type):
        raise InputValidationError("the artifact's mime_type has a NUL or a lone surrogate.")
    try:
        part_json = part.model_dump_json(by_alias=True, exclude_none=True)
    except ValueError:  # e.g. a lone surrogate in the text
        raise InputValidationError("the artifact cannot be stored as JSON.") from None
    return ArtifactRecord(
        part_json=part_json,
        data=data,
        mime_type=mime_type,
        size=size,
        create_time=platform_time.get_time(),
        metadata_json=metadata_json,
    )


def decode_part(record: ArtifactRecord) -> types.Part:
    """Rebuild the saved part from its record."""
    part = types.Part.model_validate_json(record.part_json)
    if part.inline_data is not None:
        part.inline_data.data = record.data
    return part


def _reference_of(record: ArtifactRecord) -> str | None:
    """The ``artifact://`` URI a stored record refers to, if it is a reference."""
    if record.data or artifact_util.SCHEME not in record.part_json:
        return None
    file_data = types.Part.model_validate_json(record.part_json).file_data
    uri = None if file_data is None else file_data.file_uri
    return uri if uri is not None and uri.startswith(artifact_util.SCHEME) else None


class StoredArtifactService(BaseArtifactService):
    """The ADK methods on top of a store's hooks (keys arrive validated)."""

    uri_scheme = "artifact"

    @abc.abstractmethod
    async def _save(self, key: ArtifactKey, record: ArtifactRecord) -> int:
        """Store ``record`` as the next unused version of ``key`` and return that version."""

    @abc.abstractmethod
    async def _load(self, key: ArtifactKey, version: int | None) -> ArtifactRecord | None:
        """Return the record of ``version`` (None: the latest), or None."""

    @abc.abstractmethod
    async def _versions(self, key: ArtifactKey) -> list[ArtifactRecord]:
        """Return every stored version's record, ascending, ``data`` may be left empty."""

    @abc.abstractmethod
    async def _delete(self, key: ArtifactKey) -> None:
        """Delete every version of ``key``, keeping its high-water mark."""

    @abc.abstractmethod
    async def _put_versions(self, key: ArtifactKey, records: list[ArtifactRecord]) -> None:
        """Store ``records`` under their own version numbers in ``key``, which has never had one.

        Raises:
            AlreadyExistsError: ``key`` has (or had) a version; nothing is written.
        """

    @abc.abstractmethod
    async def _list_keys(self, app_name: str, user_id: str, session_id: str | None) -> list[str]:
        """Return the filenames with at least one version in the session and user scopes."""

    def _describe(self, key: ArtifactKey, record: ArtifactRecord) -> ArtifactVersion:
        """The public description of one stored version (a store may say more)."""
        return record.info(self._uri(key, record.version))

    def _uri(self, key: ArtifactKey, version: int) -> str:
        where = "" if key.is_user else f"sessions/{key.scope}/"
        return (
            f"{self.uri_scheme}://apps/{key.app_name}/users/{key.user_id}/{where}"
            f"artifacts/{key.filename}/versions/{version}"
        )

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
        """Save a new version; see :meth:`BaseArtifactService.save_artifact`."""
        key = artifact_key(app_name, user_id, session_id, filename)
        record = encode_part(artifact, custom_metadata)
        reference = _reference_of(record)
        if reference is not None:  # a reference is checked now, not first when loaded
            artifact_util.resolve_artifact_reference(
                file_uri=reference,
                app_name=app_name,
                user_id=user_id,
                session_id=session_id,
                remaining_depth=1,
            )
        return await self._save(key, record)

    async def load_artifact(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> types.Part | None:
        """Load a version; see :meth:`BaseArtifactService.load_artifact`."""
        key = artifact_key(app_name, user_id, session_id, filename)
        validate_version(version)
        depth = artifact_util.MAX_REFERENCE_DEPTH
        while True:
            record = await self._load(key, version)
            reference = None if record is None else _reference_of(record)
            if record is None or reference is None:
                part = None if record is None else decode_part(record)
                return None if part is None or is_rewind_tombstone(part) else part
            target = artifact_util.resolve_artifact_reference(
                file_uri=reference,
                app_name=key.app_name,
                user_id=key.user_id,
                session_id=session_id,
                remaining_depth=depth,
            )
            depth, session_id, version = depth - 1, target.session_id, target.version
            key = artifact_key(target.app_name, target.user_id, session_id, target.filename)

    async def list_artifact_keys(
        self, *, app_name: str, user_id: str, session_id: str | None = None
    ) -> list[str]:
        """List filenames; see :meth:`BaseArtifactService.list_artifact_keys`."""
        validate_scope(app_name, user_id, session_id)
        return sorted(set(await self._list_keys(app_name, user_id, session_id)))

    async def delete_artifact(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> None:
        """Delete every version; see :meth:`BaseArtifactService.delete_artifact`."""
        await self._delete(artifact_key(app_name, user_id, session_id, filename))

    async def list_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[int]:
        """List versions; see :meth:`BaseArtifactService.list_versions`."""
        key = artifact_key(app_name, user_id, session_id, filename)
        return [record.version for record in await self._versions(key)]

    async def list_artifact_versions(
        self, *, app_name: str, user_id: str, filename: str, session_id: str | None = None
    ) -> list[ArtifactVersion]:
        """Describe versions; see :meth:`BaseArtifactService.list_artifact_versions`."""
        key = artifact_key(app_name, user_id, session_id, filename)
        return [self._describe(key, r) for r in await self._versions(key)]

    async def get_artifact_version(
        self,
        *,
        app_name: str,
        user_id: str,
        filename: str,
        session_id: str | None = None,
        version: int | None = None,
    ) -> ArtifactVersion | None:
        """Describe one version; see :meth:`BaseArtifactService.get_artifact_version`."""
        key = artifact_key(app_name, user_id, session_id, filename)
        validate_version(version)
        records = await self._versions(key)
        if version is not None:
            records = [r for r in records if r.version == version]
        return self._describe(key, records[-1]) if records else None

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
        """Copy the session's artifacts as of a point; see the base class."""
        validate_scope(app_name, user_id, session_id)
        validate_scope(app_name, user_id, new_session_id)
        point = HistoryPoint.of(events, position)
        names = await self._list_keys(app_name, user_id, session_id)
        for filename in sorted({n for n in names if not n.startswith(USER_PREFIX)}):
            source = artifact_key(app_name, user_id, session_id, filename)
            last = point.current(filename, await self._versions(source))
            if last is None:
                continue  # it did not exist at the point
            records = []
            for version in range(last + 1):
                record = await self._load(source, version)
                if record is not None:
                    records.append(_retargeted(record, session_id, new_session_id))
            target = artifact_key(app_name, user_id, new_session_id, filename)
            await self._put_versions(target, records)


def _retargeted(record: ArtifactRecord, session_id: str, new_session_id: str) -> ArtifactRecord:
    """``record``, a reference to a version of its own session made to name the new one."""
    reference = _reference_of(record)
    parsed = None if reference is None else artifact_util.parse_artifact_uri(reference)
    if parsed is None or parsed.session_id != session_id:
        return record
    uri = artifact_util.get_artifact_uri(
        parsed.app_name, parsed.user_id, parsed.filename, parsed.version, new_session_id
    )
    part = types.Part.model_validate_json(record.part_json)
    assert part.file_data is not None
    part.file_data.file_uri = uri
    return dataclasses.replace(
        record, part_json=part.model_dump_json(by_alias=True, exclude_none=True)
    )
