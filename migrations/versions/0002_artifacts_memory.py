"""Artifacts (versions with a never-reused high-water mark) and memory with full-text search.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21

The full-text index differs per dialect: PostgreSQL gets a generated ``tsvector`` column with
a GIN index, SQLite an external-content FTS5 table kept in sync by triggers.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from adk_runtime.sql.types import DateTimeUTC

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.String(128)
KEY = ["app_name", "user_id", "scope", "filename"]

_SQLITE_FTS = [
    "CREATE VIRTUAL TABLE adk_memory_fts USING fts5(text, content='adk_memory_entries', "
    "content_rowid='id', tokenize='porter unicode61')",
    "CREATE TRIGGER adk_memory_fts_insert AFTER INSERT ON adk_memory_entries BEGIN "
    "INSERT INTO adk_memory_fts(rowid, text) VALUES (new.id, new.text); END",
    "CREATE TRIGGER adk_memory_fts_delete AFTER DELETE ON adk_memory_entries BEGIN "
    "INSERT INTO adk_memory_fts(adk_memory_fts, rowid, text) VALUES ('delete', old.id, old.text); "
    "END",
    "CREATE TRIGGER adk_memory_fts_update AFTER UPDATE ON adk_memory_entries BEGIN "
    "INSERT INTO adk_memory_fts(adk_memory_fts, rowid, text) VALUES ('delete', old.id, old.text); "
    "INSERT INTO adk_memory_fts(rowid, text) VALUES (new.id, new.text); END",
]
_SQLITE_FTS_DROP = [
    "DROP TRIGGER IF EXISTS adk_memory_fts_update",
    "DROP TRIGGER IF EXISTS adk_memory_fts_delete",
    "DROP TRIGGER IF EXISTS adk_memory_fts_insert",
    "DROP TABLE IF EXISTS adk_memory_fts",
]
_POSTGRESQL_FTS = [
    "ALTER TABLE adk_memory_entries ADD COLUMN search_vector tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', text)) STORED",
    "CREATE INDEX ix_adk_memory_entries_search_vector ON adk_memory_entries "
    "USING gin (search_vector)",
]


def _key_columns() -> list[sa.Column[str]]:
    return [
        sa.Column("app_name", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("scope", ID, nullable=False),
        sa.Column("filename", sa.String(255), nullable=False),
    ]


def upgrade() -> None:
    op.create_table(
        "adk_artifact_heads",
        *_key_columns(),
        sa.Column("next_version", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint(*KEY, name=op.f("pk_adk_artifact_heads")),
    )
    op.create_table(
        "adk_artifact_versions",
        *_key_columns(),
        sa.Column("version", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("mime_type", sa.Text(), nullable=True),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("create_time", DateTimeUTC(), nullable=False),
        sa.Column("part", sa.Text(), nullable=False),
        sa.Column("custom_metadata", sa.Text(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint(*KEY, "version", name=op.f("pk_adk_artifact_versions")),
    )
    op.create_table(
        "adk_memory_entries",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("app_name", ID, nullable=False),
        sa.Column("user_id", ID, nullable=False),
        sa.Column("session_id", ID, nullable=False),
        sa.Column("event_id", ID, nullable=False),
        sa.Column("author", sa.Text(), nullable=True),
        sa.Column("timestamp", sa.Double(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("custom_metadata", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_adk_memory_entries")),
        sa.UniqueConstraint(
            "app_name",
            "user_id",
            "session_id",
            "event_id",
            name=op.f("uq_adk_memory_entries_app_name_user_id_session_id_event_id"),
        ),
    )
    op.create_index(
        op.f("ix_adk_memory_entries_app_name_user_id"),
        "adk_memory_entries",
        ["app_name", "user_id"],
    )
    fts = _POSTGRESQL_FTS if op.get_bind().dialect.name == "postgresql" else _SQLITE_FTS
    for statement in fts:
        op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for statement in _SQLITE_FTS_DROP:
            op.execute(statement)
    op.drop_index(op.f("ix_adk_memory_entries_app_name_user_id"), table_name="adk_memory_entries")
    op.drop_table("adk_memory_entries")
    op.drop_table("adk_artifact_versions")
    op.drop_table("adk_artifact_heads")
