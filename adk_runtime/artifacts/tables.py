"""The SQL tables of the artifact store (declared on the shared MetaData; Alembic owns them).

``adk_artifact_heads`` keeps one row per artifact with ``next_version``, its high-water mark:
it only grows and survives deletes, so a version number is never handed out twice.
``adk_artifact_versions`` holds each version: the inline bytes as a BLOB / bytea, the rest
of the part as JSON text, MIME type, size, creation time and custom metadata. ``scope`` is
the session id, or ``""`` for the user's (``user:``) artifacts.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, LargeBinary, String, Table, Text

from adk_runtime.sql.schema import metadata
from adk_runtime.sql.types import DateTimeUTC

__all__ = ["artifact_heads", "artifact_versions"]

ID = String(128)
FILENAME = String(255)


def _key_columns() -> list[Column[str]]:
    return [
        Column("app_name", ID, primary_key=True),
        Column("user_id", ID, primary_key=True),
        Column("scope", ID, primary_key=True),
        Column("filename", FILENAME, primary_key=True),
    ]


artifact_heads = Table(
    "adk_artifact_heads",
    metadata,
    *_key_columns(),
    Column("next_version", BigInteger, nullable=False),
)

artifact_versions = Table(
    "adk_artifact_versions",
    metadata,
    *_key_columns(),
    Column("version", BigInteger, primary_key=True, autoincrement=False),
    Column("mime_type", Text, nullable=True),
    Column("size", BigInteger, nullable=False),
    Column("create_time", DateTimeUTC, nullable=False),
    Column("part", Text, nullable=False),
    Column("custom_metadata", Text, nullable=False),
    Column("data", LargeBinary, nullable=False),
)
