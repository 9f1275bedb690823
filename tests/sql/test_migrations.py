"""Alembic owns the schema: round trips, no drift, in-place upgrades, explicit server upgrades."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from adk_runtime.errors import ConfigurationError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.sql import Database, create_engine, load_all_tables, migrate, schema
from tests.sql.old_rows import write_old_session

ADK_TABLES = {table.name for table in load_all_tables().sorted_tables}


def _auto(url: str) -> dict[str, Any]:
    return {"auto_migrate": True} if url.startswith("postgresql") else {}


async def _tables(db: Database) -> set[str]:
    async with db.autocommit() as connection:
        names: list[str] = await connection.run_sync(lambda c: inspect(c).get_table_names())
    return set(names)


def _diff(connection: Connection) -> list[Any]:
    # The full-text objects of revision 0002 have no portable model (see schema.MIGRATION_ONLY).
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "include_object": schema.include_object}
    )
    return list(compare_metadata(context, load_all_tables()))


async def test_upgrade_downgrade_upgrade(empty_url: str) -> None:
    db = Database(create_engine(empty_url), owns_engine=True)
    try:
        await migrate.upgrade(db)
        assert await _tables(db) >= ADK_TABLES
        assert (await migrate.schema_status(db)).up_to_date
        await migrate.downgrade(db, "base")
        assert not ADK_TABLES & await _tables(db)
        assert (await migrate.schema_status(db)).current is None
        await migrate.upgrade(db)
        assert await _tables(db) >= ADK_TABLES
    finally:
        await db.dispose()
    async with DatabaseSessionService(empty_url) as service:
        session = await service.create_session(app_name="a", user_id="u", session_id="s")
        await service.append_event(session, Event(author="user"))
        assert session.revision == 1


async def test_models_and_migrations_do_not_drift(empty_url: str) -> None:
    db = Database(create_engine(empty_url), owns_engine=True)
    try:
        await migrate.upgrade(db)
        async with db.autocommit() as connection:
            assert await connection.run_sync(_diff) == []
    finally:
        await db.dispose()


async def test_database_at_an_older_revision_is_upgraded_in_place(empty_url: str) -> None:
    db = Database(create_engine(empty_url), owns_engine=True)
    try:
        # Data that is not ours survives, and so do sessions written at the oldest revision.
        async with db.write() as connection:
            await connection.execute(text("CREATE TABLE legacy_notes (id INTEGER, note TEXT)"))
            await connection.execute(text("INSERT INTO legacy_notes VALUES (1, 'keep me')"))
        await migrate.upgrade(db, "0001")
        await write_old_session(
            db,
            Event(author="user", actions=EventActions()),
            state={"k": 1},
            user_state={"n": "x"},
        )
        await migrate.upgrade(db)
        async with DatabaseSessionService(db_engine=db.engine, auto_migrate=False) as service:
            loaded = await service.get_session(app_name="a", user_id="u", session_id="s")
        assert loaded is not None
        assert (loaded.state, loaded.revision, len(loaded.events)) == (
            {"k": 1, "user:n": "x"},
            1,
            1,
        )
        async with db.autocommit() as connection:
            notes = (await connection.execute(text("SELECT note FROM legacy_notes"))).all()
        assert [row.note for row in notes] == ["keep me"]
    finally:
        await db.dispose()


async def test_missing_schema_without_auto_migrate_names_the_fix(empty_url: str) -> None:
    service = DatabaseSessionService(empty_url, auto_migrate=False)
    try:
        with pytest.raises(ConfigurationError, match=r"adk-runtime db upgrade --url"):
            await service.create_session(app_name="a", user_id="u", session_id="s")
    finally:
        await service.close()
    db = Database(create_engine(empty_url), owns_engine=True)
    try:
        assert not ADK_TABLES & await _tables(db)
    finally:
        await db.dispose()


@pytest.mark.postgres
async def test_server_databases_are_not_migrated_by_default(postgres_url: str) -> None:
    from tests.sql_support import create_database, drop_database, unique_name

    name = unique_name("adk_nomig")
    url = await create_database(name)
    try:
        async with DatabaseSessionService(url.replace(":secret", "")) as service:
            with pytest.raises(ConfigurationError, match="db upgrade"):
                await service.prepare()
    finally:
        await drop_database(name)


@pytest.mark.sqlite
async def test_sqlite_migrates_itself_by_default(tmp_path: Any) -> None:
    url = f"sqlite:///{tmp_path / 'auto.db'}"
    async with DatabaseSessionService(url) as service:
        created = await service.create_session(app_name="a", user_id="u", state={"k": 1})
        assert created.state == {"k": 1}


async def test_stamp_and_status(empty_url: str) -> None:
    db = Database(create_engine(empty_url), owns_engine=True)
    try:
        await migrate.upgrade(db)
        await migrate.stamp(db, "base")
        status = await migrate.schema_status(db)
        assert (status.current, status.up_to_date) == (None, False)
        await migrate.stamp(db, "head")
        assert (await migrate.schema_status(db)).up_to_date
    finally:
        await db.dispose()


async def test_schema_from_a_newer_release_is_refused(empty_url: str) -> None:
    db = Database(create_engine(empty_url), owns_engine=True)
    try:
        await migrate.upgrade(db)
        async with db.write() as connection:
            await connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
        service = DatabaseSessionService(db_engine=db.engine, **_auto(empty_url))
        with pytest.raises(ConfigurationError, match="does not know"):
            await service.prepare()
    finally:
        await db.dispose()


async def test_migrations_in_one_process_run_one_at_a_time(empty_url: str) -> None:
    replicas = [Database(create_engine(empty_url), owns_engine=True) for _ in range(3)]
    try:
        await asyncio.gather(*(migrate.upgrade(db) for db in replicas))
        statuses = await asyncio.gather(*(migrate.schema_status(db) for db in replicas))
        assert all(status.up_to_date for status in statuses)
    finally:
        await asyncio.gather(*(db.dispose() for db in replicas))


@pytest.mark.sqlite
async def test_prepare_tables_readies_the_schema_at_start_up(tmp_path: Any) -> None:
    """google-adk's ``prepare_tables()``: the schema is made before the first operation,
    from many tasks at once, and calling it again does nothing."""
    url = f"sqlite:///{tmp_path / 'eager.db'}"
    async with DatabaseSessionService(url) as service:
        await asyncio.gather(*(service.prepare_tables() for _ in range(5)))
        db = Database(create_engine(url), owns_engine=True)
        try:
            assert (await migrate.schema_status(db)).up_to_date
        finally:
            await db.dispose()
        await service.prepare_tables()
        created = await service.create_session(app_name="a", user_id="u", session_id="s1")
        assert created.id == "s1"
