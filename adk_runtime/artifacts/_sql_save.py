"""How a version is saved on each SQL dialect: bump the high-water mark, insert the version.

- SQLite: two statements in one ``BEGIN IMMEDIATE`` transaction (the write lock serializes
  savers of every artifact).
- PostgreSQL: one statement, a data-modifying CTE (the upsert's row lock serializes savers of
  the same artifact), committed on its own, so a save is a single round trip.

Both return the new version: the head's ``next_version`` after the bump, minus one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import insert, literal, select
from sqlalchemy.dialects import postgresql, sqlite

from adk_runtime.artifacts.tables import artifact_heads, artifact_versions
from adk_runtime.sql.engine import Database

__all__ = ["SAVES"]

_H = artifact_heads.c


def _bump(dialect_insert: Any, names: dict[str, str]) -> Any:
    return (
        dialect_insert(artifact_heads)
        .values(**names, next_version=1)
        .on_conflict_do_update(
            index_elements=list(names), set_={"next_version": _H.next_version + 1}
        )
        .returning(_H.next_version)
    )


async def _save_sqlite(db: Database, names: dict[str, str], row: dict[str, Any]) -> int:
    async with db.write() as connection:
        version = int((await connection.execute(_bump(sqlite.insert, names))).scalar_one()) - 1
        await connection.execute(insert(artifact_versions).values(**names, version=version, **row))
    return version


async def _save_postgresql(db: Database, names: dict[str, str], row: dict[str, Any]) -> int:
    bump = _bump(postgresql.insert, names).cte("bump")
    values = {**names, **row}
    columns = [*values, "version"]
    source = select(
        *(literal(value, artifact_versions.c[name].type) for name, value in values.items()),
        bump.c.next_version - 1,
    )
    statement = (
        insert(artifact_versions)
        .from_select(columns, source)
        .returning(artifact_versions.c.version)
    )
    async with db.autocommit() as connection:
        return int((await connection.execute(statement)).scalar_one())


SAVES: dict[str, Callable[[Database, dict[str, str], dict[str, Any]], Awaitable[int]]] = {
    "sqlite": _save_sqlite,
    "postgresql": _save_postgresql,
}
