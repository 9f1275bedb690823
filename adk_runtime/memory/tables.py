"""The SQL table of the memory store (declared on the shared MetaData; Alembic owns it).

One row per remembered event; ``(app_name, user_id, session_id, event_id)`` is unique, so
adding a session twice stores nothing new. The full-text index is dialect-specific and made
by the migration only (it has no portable declaration): on PostgreSQL the generated
``tsvector`` column :data:`SEARCH_COLUMN` with a GIN index, on SQLite the FTS5 table
:data:`FTS_TABLE` kept in sync by triggers. They are added to
:data:`adk_runtime.sql.schema.MIGRATION_ONLY`, so model/database comparisons skip them.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    Double,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from adk_runtime.sql.schema import MIGRATION_ONLY, metadata

__all__ = ["FTS_TABLE", "SEARCH_COLUMN", "TS_CONFIG", "memory_entries"]

ID = String(128)
TS_CONFIG = "english"
"""The PostgreSQL text-search configuration (stemming like SQLite's ``porter`` tokenizer)."""
SEARCH_COLUMN = "search_vector"
FTS_TABLE = "adk_memory_fts"
MIGRATION_ONLY.update(
    {SEARCH_COLUMN, f"ix_adk_memory_entries_{SEARCH_COLUMN}", FTS_TABLE},
    {f"{FTS_TABLE}_{suffix}" for suffix in ("data", "idx", "content", "docsize", "config")},
)

memory_entries = Table(
    "adk_memory_entries",
    metadata,
    # INTEGER PRIMARY KEY on SQLite: the rowid the FTS5 index points at.
    Column("id", BigInteger().with_variant(Integer(), "sqlite"), primary_key=True),
    Column("app_name", ID, nullable=False),
    Column("user_id", ID, nullable=False),
    Column("session_id", ID, nullable=False),
    Column("event_id", ID, nullable=False),
    Column("author", Text, nullable=True),
    Column("timestamp", Double, nullable=False),
    Column("content", Text, nullable=False),
    Column("text", Text, nullable=False),
    Column("custom_metadata", Text, nullable=False),
    UniqueConstraint("app_name", "user_id", "session_id", "event_id"),
    Index(None, "app_name", "user_id"),
)
