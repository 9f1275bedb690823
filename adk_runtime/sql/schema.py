"""The one :class:`~sqlalchemy.MetaData` every adk_runtime table is declared on.

Modules declare their tables on :data:`metadata`; :data:`TABLE_MODULES` lists those modules
so Alembic (and the drift test) can load every table with :func:`load_all_tables`. Alembic
owns the schema: production code never calls ``create_all``.
"""

from __future__ import annotations

import importlib

from sqlalchemy import MetaData

__all__ = ["TABLE_MODULES", "load_all_tables", "metadata"]

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
