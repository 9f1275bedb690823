"""SpannerArtifactService: versioned artifacts on Cloud Spanner (``spanner:///projects/…``).

**Layout** (step 2 of the Spanner schema, :mod:`adk_runtime.sessions.spanner._schema`): one
``adk_artifact_heads`` row per artifact, keyed by ``(app_name, user_id, scope, filename)``
(``scope``: the session id, ``""`` for a ``user:`` file) with ``next_version``, the
high-water mark: it only grows and survives deletes, so a version number is never handed out
twice. Each version is a row of ``adk_artifact_versions`` *interleaved* in its head (stored
beside it, keyed by version): the inline bytes in ``BYTES(MAX)``, the rest of the part and
the custom metadata as JSON in ``BYTES(MAX)``, MIME type, size and creation time. Keys lead
with the application's own names, never a sequence or a time, so writes spread over the key
space (no hotspot).

**Round trips.** A save is one read-write transaction of two round trips: one query reads
the head (and begins the transaction inline), one ``Commit`` writes the bumped head and the
version row together, so a save is whole or absent. Two savers of one artifact conflict and
Spanner aborts one; it runs again from the read and takes the next number. A load, a listing
and a version listing are one strong read each; a delete is two (the version keys, then one
commit deleting them).

**Limits.** A Spanner cell holds at most 10 MiB (:data:`CELL_BYTES`): a save whose bytes, or
whose part or metadata JSON, is larger is refused with ``InputValidationError`` before anything
is sent, and no version number is taken. A commit carries at most 100 MB of mutations: copying
a session's artifacts into a fork (one commit per artifact, with every version it copies) is
refused the same way when one artifact's copied versions are larger.
"""

from __future__ import annotations

from typing import Any

from adk_runtime.artifacts._store import ArtifactRecord, StoredArtifactService
from adk_runtime.artifacts._validation import ArtifactKey
from adk_runtime.errors import AlreadyExistsError, InputValidationError
from adk_runtime.sessions.spanner.store import (
    CELL_BYTES,
    Blob,
    Param,
    SpannerStore,
    Transaction,
    Write,
)

__all__ = ["SpannerArtifactService"]

COMMIT_BYTES = 90 * 1000 * 1000
"""What one fork copy may write in one commit (Spanner's limit is 100 MB, keys included)."""

_HEADS = "adk_artifact_heads"
_VERSIONS = "adk_artifact_versions"
_KEY_COLUMNS = ("app_name", "user_id", "scope", "filename")
_HEAD_COLUMNS = (*_KEY_COLUMNS, "next_version")
_VALUE_COLUMNS = ("mime_type", "size", "create_time", "part", "custom_metadata", "data")
_VERSION_COLUMNS = (*_KEY_COLUMNS, "version", *_VALUE_COLUMNS)
_WHERE = "app_name = @app AND user_id = @user AND scope = @scope AND filename = @file"
_META = "version, mime_type, size, create_time, part, custom_metadata"


def _params(key: ArtifactKey) -> dict[str, Param]:
    return {"app": key.app_name, "user": key.user_id, "scope": key.scope, "file": key.filename}


def _names(key: ArtifactKey) -> tuple[str, str, str, str]:
    return (key.app_name, key.user_id, key.scope, key.filename)


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _record(row: list[Any], data: bytes = b"") -> ArtifactRecord:
    version, mime_type, size, create_time, part, metadata = row[:6]
    return ArtifactRecord(
        part_json=_text(part),
        data=data,
        mime_type=mime_type,
        size=size,
        create_time=create_time,
        metadata_json=_text(metadata),
        version=version,
    )


def _checked(record: ArtifactRecord) -> int:
    """The bytes ``record`` takes in a row; InputValidationError if a cell cannot hold it."""
    cells = {
        "bytes": len(record.data),
        "part": len(record.part_json.encode()),
        "custom metadata": len(record.metadata_json.encode()),
    }
    for what, size in cells.items():
        if size > CELL_BYTES:
            raise InputValidationError(
                f"The artifact's {what} take {size} bytes; a Spanner cell holds at most "
                f"{CELL_BYTES} (10 MiB). Store it elsewhere (e.g. a file store) and save a "
                "reference."
            )
    return sum(cells.values())


def _version_write(key: ArtifactKey, record: ArtifactRecord, version: int) -> Write:
    values = (
        *_names(key),
        version,
        record.mime_type,
        record.size,
        float(record.create_time),
        Blob(record.part_json),
        Blob(record.metadata_json),
        record.data,
    )
    return Write("insert", _VERSIONS, _VERSION_COLUMNS, values)


class SpannerArtifactService(SpannerStore, StoredArtifactService):
    """Artifacts in the same Spanner database and schema as the sessions (see the module).

    Built as :class:`~adk_runtime.sessions.spanner.store.SpannerStore` is: a database path
    (``projects/P/instances/I/databases/D``) and ``emulator_host``, ``max_sessions``,
    ``timeout``; or ``artifact_service_from_url("spanner:///projects/P/…")``. Run
    ``adk-runtime db upgrade`` (or :meth:`prepare`) once to create the tables.
    """

    uri_scheme = "spanner"

    async def _save(self, key: ArtifactKey, record: ArtifactRecord) -> int:
        _checked(record)

        async def body(transaction: Transaction) -> int:
            rows = await transaction.query(
                f"SELECT next_version FROM {_HEADS} WHERE {_WHERE}", _params(key)
            )
            version: int = rows[0][0] if rows else 0
            head = Write("insert_or_update", _HEADS, _HEAD_COLUMNS, (*_names(key), version + 1))
            transaction.write(head, _version_write(key, record, version))
            return version

        version, _ = await self._link.transact("saving an artifact", body)
        return version

    async def _put_versions(self, key: ArtifactKey, records: list[ArtifactRecord]) -> None:
        size = sum(_checked(record) for record in records)
        if size > COMMIT_BYTES:
            raise InputValidationError(
                f"The versions of {key.filename[:40]!r} to copy take {size} bytes; one Spanner "
                f"commit carries at most {COMMIT_BYTES}."
            )
        next_version = max((record.version for record in records), default=-1) + 1

        async def body(transaction: Transaction) -> None:
            rows = await transaction.query(f"SELECT 1 FROM {_HEADS} WHERE {_WHERE}", _params(key))
            if rows:
                raise AlreadyExistsError(f"Artifact {key.filename!r} already has versions.")
            head = Write("insert", _HEADS, _HEAD_COLUMNS, (*_names(key), next_version))
            versions = [_version_write(key, r, r.version) for r in records]
            transaction.write(head, *versions)

        await self._link.transact("copying an artifact", body)

    async def _load(self, key: ArtifactKey, version: int | None) -> ArtifactRecord | None:
        params = _params(key)
        if version is None:
            which = "ORDER BY version DESC LIMIT 1"
        else:
            which, params["version"] = "AND version = @version", version
        rows = await self._link.read(
            f"SELECT {_META}, data FROM {_VERSIONS} WHERE {_WHERE} {which}", params, binary=True
        )
        return _record(rows[0], rows[0][6]) if rows else None

    async def _versions(self, key: ArtifactKey) -> list[ArtifactRecord]:
        rows = await self._link.read(
            f"SELECT {_META} FROM {_VERSIONS} WHERE {_WHERE} ORDER BY version", _params(key)
        )
        return [_record(row) for row in rows]

    async def _delete(self, key: ArtifactKey) -> None:
        async def body(transaction: Transaction) -> None:
            rows = await transaction.query(
                f"SELECT version FROM {_VERSIONS} WHERE {_WHERE}", _params(key)
            )
            transaction.write(
                *(Write("delete", _VERSIONS, key=(*_names(key), row[0])) for row in rows)
            )

        await self._link.transact("deleting an artifact", body)

    async def _list_keys(self, app_name: str, user_id: str, session_id: str | None) -> list[str]:
        scopes = ["", session_id] if session_id is not None else [""]
        rows = await self._link.read(
            f"SELECT DISTINCT filename FROM {_VERSIONS} "
            "WHERE app_name = @app AND user_id = @user AND scope IN UNNEST(@scopes)",
            {"app": app_name, "user": user_id, "scopes": scopes},
        )
        return [row[0] for row in rows]
