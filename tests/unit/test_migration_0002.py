"""Revision 0002 (artifacts and memory): upgrade, downgrade, and no drift from the models."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from google.genai import types
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from adk_runtime.errors import ConfigurationError
from adk_runtime.sql import Database, create_engine, load_all_tables, migrate, schema
from tests.sql_support import create_database, drop_database, unique_name

OURS = {"adk_artifact_heads", "adk_artifact_versions", "adk_memory_entries"}
SESSIONS = {"adk_sessions", "adk_events", "adk_app_states", "adk_user_states"}


@pytest.fixture(
    params=[
        pytest.param("sqlite", marks=pytest.mark.sqlite),
        pytest.param("postgres", marks=pytest.mark.postgres),
    ]
)
async def empty_db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A database with no schema (a fresh SQLite file, or a fresh PostgreSQL database)."""
    name = unique_name("adk_mig")
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'migrations.db'}"
    else:
        url = await create_database(name)
    db = Database(create_engine(url), owns_engine=True)
    try:
        yield db
    finally:
        await db.dispose()
        if request.param == "postgres":
            await drop_database(name)


def _drift(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "include_object": schema.include_object}
    )
    return list(compare_metadata(context, load_all_tables()))


def _schema(connection: Connection) -> dict[str, set[str]]:
    inspector = inspect(connection)
    return {
        table: {column["name"] for column in inspector.get_columns(table)}
        for table in inspector.get_table_names()
    }


async def _run(db: Database, func: Any) -> Any:
    async with db.engine.connect() as connection:
        return await connection.run_sync(func)


async def test_upgrade_creates_the_tables_and_the_search_index(empty_db: Database) -> None:
    await migrate.upgrade(empty_db)
    assert await migrate.current_revision(empty_db) == "0002"
    schema = await _run(empty_db, _schema)
    assert set(schema) >= OURS | SESSIONS
    if empty_db.dialect == "postgresql":
        assert "search_vector" in schema["adk_memory_entries"]
    else:
        assert "adk_memory_fts" in schema


async def test_models_and_migrations_do_not_drift(empty_db: Database) -> None:
    await migrate.upgrade(empty_db)
    assert await _run(empty_db, _drift) == []


async def test_downgrade_to_0001_removes_only_revision_0002(empty_db: Database) -> None:
    await migrate.upgrade(empty_db)
    await migrate.downgrade(empty_db, "0001")
    assert await migrate.current_revision(empty_db) == "0001"
    tables = set(await _run(empty_db, _schema))
    assert tables >= SESSIONS
    assert not (tables & (OURS | {"adk_memory_fts"}))
    await migrate.upgrade(empty_db)
    assert await migrate.current_revision(empty_db) == "0002"
    await migrate.downgrade(empty_db, "base")
    assert not set(await _run(empty_db, _schema)) & (OURS | SESSIONS)


async def test_services_refuse_a_database_without_the_schema(empty_db: Database) -> None:
    from adk_runtime.artifacts.database import DatabaseArtifactService
    from adk_runtime.memory.database import DatabaseMemoryService

    url = empty_db.url
    for service in (
        DatabaseArtifactService(url, auto_migrate=False),
        DatabaseMemoryService(url, auto_migrate=False),
    ):
        try:
            with pytest.raises(ConfigurationError, match="adk-runtime db upgrade"):
                await service.prepare()
        finally:
            await service.close()
    assert await migrate.current_revision(empty_db) is None


@pytest.mark.sqlite
async def test_sqlite_services_migrate_themselves_by_default(tmp_path: Path) -> None:
    from adk_runtime.artifacts.database import DatabaseArtifactService

    url = f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
    async with DatabaseArtifactService(url) as service:
        part = types.Part(text="hello")
        key = {"app_name": "a", "user_id": "u", "session_id": "s", "filename": "f.txt"}
        assert await service.save_artifact(artifact=part, **key) == 0
