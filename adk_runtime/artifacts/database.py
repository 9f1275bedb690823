"""DatabaseArtifactService: versioned artifacts in SQLite or PostgreSQL.

A save is atomic: an upsert bumps the artifact's high-water mark
(``adk_artifact_heads.next_version``) and returns it, which serializes concurrent savers of
the same artifact on its row (PostgreSQL) or on the write lock (SQLite), and the version row
is inserted with it (one statement on PostgreSQL, one transaction on SQLite; see
:mod:`._sql_save`). A delete removes the version rows and keeps the high-water mark, so numbers are
never reused. The schema belongs to Alembic (revision ``0002``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Select, and_, delete, insert, select
from sqlalchemy.engine import Row

from adk_runtime.artifacts._sql_save import SAVES
from adk_runtime.artifacts._store import ArtifactRecord, StoredArtifactService
from adk_runtime.artifacts._validation import ArtifactKey
from adk_runtime.artifacts.tables import artifact_heads, artifact_versions
from adk_runtime.errors import AlreadyExistsError
from adk_runtime.sql.handle import SqlService

__all__ = ["DatabaseArtifactService"]

_V = artifact_versions.c
_META_COLUMNS = [_V.version, _V.mime_type, _V.size, _V.create_time, _V.part, _V.custom_metadata]


def _where(key: ArtifactKey) -> Any:
    return and_(
        _V.app_name == key.app_name,
        _V.user_id == key.user_id,
        _V.scope == key.scope,
        _V.filename == key.filename,
    )


def _names(key: ArtifactKey) -> dict[str, str]:
    return {
        "app_name": key.app_name,
        "user_id": key.user_id,
        "scope": key.scope,
        "filename": key.filename,
    }


def _row(record: ArtifactRecord) -> dict[str, Any]:
    return {
        "mime_type": record.mime_type,
        "size": record.size,
        "create_time": datetime.fromtimestamp(record.create_time, timezone.utc),
        "part": record.part_json,
        "custom_metadata": record.metadata_json,
        "data": record.data,
    }


def _record(row: Row[Any], data: bytes = b"") -> ArtifactRecord:
    return ArtifactRecord(
        part_json=row.part,
        data=data,
        mime_type=row.mime_type,
        size=row.size,
        create_time=row.create_time.timestamp(),
        metadata_json=row.custom_metadata,
        version=row.version,
    )


class DatabaseArtifactService(SqlService, StoredArtifactService):
    """Artifacts in the same SQLite / PostgreSQL database and migrations as the sessions.

    Built as every SQL service is: see :class:`~adk_runtime.sql.handle.SqlService` for its
    arguments (``db_url`` or ``db_engine``, ``auto_migrate``, engine options).
    """

    uri_scheme = "db"

    async def _save(self, key: ArtifactKey, record: ArtifactRecord) -> int:
        save_version = SAVES[self._sql.dialect]
        return await save_version(await self._sql.open(), _names(key), _row(record))

    async def _put_versions(self, key: ArtifactKey, records: list[ArtifactRecord]) -> None:
        names = _names(key)
        head = select(artifact_heads.c.next_version).where(
            *(artifact_heads.c[name] == value for name, value in names.items())
        )
        db = await self._sql.open()
        async with db.write() as connection:
            if (await connection.execute(head)).first() is not None:
                raise AlreadyExistsError(f"Artifact {key.filename!r} already has versions.")
            next_version = max((record.version for record in records), default=-1) + 1
            await connection.execute(
                insert(artifact_heads).values(**names, next_version=next_version)
            )
            if records:
                rows = [{**names, "version": r.version, **_row(r)} for r in records]
                await connection.execute(insert(artifact_versions), rows)

    async def _load(self, key: ArtifactKey, version: int | None) -> ArtifactRecord | None:
        query: Select[Any] = select(*_META_COLUMNS, _V.data).where(_where(key))
        if version is None:
            query = query.order_by(_V.version.desc()).limit(1)
        else:
            query = query.where(_V.version == version)
        db = await self._sql.open()
        async with db.autocommit() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else _record(row, bytes(row.data))

    async def _versions(self, key: ArtifactKey) -> list[ArtifactRecord]:
        query = select(*_META_COLUMNS).where(_where(key)).order_by(_V.version)
        db = await self._sql.open()
        async with db.autocommit() as connection:
            rows = (await connection.execute(query)).all()
        return [_record(row) for row in rows]

    async def _delete(self, key: ArtifactKey) -> None:
        db = await self._sql.open()
        async with db.write() as connection:
            await connection.execute(delete(artifact_versions).where(_where(key)))

    async def _list_keys(self, app_name: str, user_id: str, session_id: str | None) -> list[str]:
        scopes = ["", session_id] if session_id is not None else [""]
        query = (
            select(_V.filename)
            .distinct()
            .where(_V.app_name == app_name, _V.user_id == user_id, _V.scope.in_(scopes))
        )
        db = await self._sql.open()
        async with db.autocommit() as connection:
            return list((await connection.execute(query)).scalars())
