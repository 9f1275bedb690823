"""The one :class:`~sqlalchemy.MetaData` every adk_runtime table is declared on.

Modules declare their tables on :data:`metadata`; :data:`TABLE_MODULES` lists those modules
so Alembic (and the drift test) can load every table with :func:`load_all_tables`. Alembic
owns the schema: production code never calls ``create_all``. Objects a migration makes that
have no portable declaration (full-text indexes) are named in :data:`MIGRATION_ONLY` and
skipped by :func:`include_object` when Alembic compares the models with a database.
"""

from __future__ import annotations

import importlib
from typing import Any

from sqlalchemy import MetaData

__all__ = ["MIGRATION_ONLY", "TABLE_MODULES", "include_object", "load_all_tables", "metadata"]

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)
"""Shared metadata of every adk_runtime table."""

TABLE_MODULES: list[str] = [
    "adk_runtime.sessions.sql.tables",
    "adk_runtime.artifacts.tables",
    "adk_runtime.memory.tables",
]
"""Modules that declare tables on :data:`metadata` (add yours here)."""


def load_all_tables() -> MetaData:
    """Import every module of :data:`TABLE_MODULES` and return :data:`metadata`."""
    for name in TABLE_MODULES:
        importlib.import_module(name)
    return metadata


MIGRATION_ONLY: set[str] = set()
"""Names of tables, columns and indexes made by migrations only (table modules add theirs)."""


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    """Alembic's ``include_object`` hook: leave out :data:`MIGRATION_ONLY` objects."""
    return name not in MIGRATION_ONLY
