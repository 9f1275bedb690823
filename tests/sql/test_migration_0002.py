"""Revision 0002 (artifacts and memory): upgrade, downgrade, and no drift from the models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from google.genai import types
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from adk_runtime.errors import ConfigurationError
from adk_runtime.sql import Database, load_all_tables, migrate, schema
from tests.sql.old_rows import write_old_session

OURS = {"adk_artifact_heads", "adk_artifact_versions", "adk_memory_entries"}
SESSIONS = {"adk_sessions", "adk_events", "adk_app_states", "adk_user_states"}


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
    await migrate.upgrade(empty_db, "0002")
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
    await migrate.upgrade(empty_db, "0002")
    await migrate.downgrade(empty_db, "0001")
    assert await migrate.current_revision(empty_db) == "0001"
    tables = set(await _run(empty_db, _schema))
    assert tables >= SESSIONS
    assert not (tables & (OURS | {"adk_memory_fts"}))
    await migrate.upgrade(empty_db, "0002")
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


async def test_a_0001_database_upgrades_in_place_and_serves_artifacts_and_memory(
    empty_db: Database,
) -> None:
    from adk_runtime.artifacts.database import DatabaseArtifactService
    from adk_runtime.memory.database import DatabaseMemoryService
    from adk_runtime.sessions import DatabaseSessionService
    from adk_runtime.testing import text_event

    await migrate.upgrade(empty_db, "0001")
    await write_old_session(empty_db, text_event("remember the blue umbrella", role="user"))
    await migrate.upgrade(empty_db)
    async with DatabaseSessionService(db_engine=empty_db.engine, auto_migrate=False) as sessions:
        loaded = await sessions.get_session(app_name="a", user_id="u", session_id="s")
    assert loaded is not None
    assert loaded.revision == 1
    memory = DatabaseMemoryService(empty_db.url, auto_migrate=False)
    artifacts = DatabaseArtifactService(empty_db.url, auto_migrate=False)
    try:
        await memory.add_session_to_memory(loaded)
        found = await memory.search_memory(app_name="a", user_id="u", query="umbrella")
        assert [entry.id for entry in found.memories] == [loaded.events[0].id]
        key = {"app_name": "a", "user_id": "u", "session_id": "s", "filename": "f.txt"}
        assert await artifacts.save_artifact(artifact=types.Part(text="x"), **key) == 0
    finally:
        await memory.close()
        await artifacts.close()
