"""The hot-path statements run on the driver connection agree with the migrated schema.

The append statements and PostgreSQL's create, session read and claim statements are built
from the table definitions and compiled once per dialect (``_driver_statements``), so the
drift test (model against migrations) covers their columns. This test checks each compiled
statement against a migrated database: each is prepared (PostgreSQL) or explained (SQLite),
which resolves every table, column and conflict target without running it.
"""

from __future__ import annotations

from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.engine import make_url

from adk_runtime.sessions.sql import _append, _create
from adk_runtime.sessions.sql import _driver_statements as driver_statements
from adk_runtime.sql import Database, create_engine, migrate
from adk_runtime.sql.types import SQLITE_JSON_MERGE
from tests.sql_support import create_database, drop_database, unique_name

_PG = {
    "append": _append._PG_APPEND,
    "explain": _append._PG_EXPLAIN,
    "create": _create._PG_CREATE,
    **{f"read {key}": compiled for key, compiled in driver_statements.POSTGRESQL_READS.items()},
    **{f"claim {key}": compiled for key, compiled in driver_statements.POSTGRESQL_CLAIMS.items()},
    **{f"start {key}": compiled for key, compiled in driver_statements.POSTGRESQL_STARTS.items()},
}
_SQLITE = {
    "cas": _append._SQLITE_CAS_STATE,
    "cas plain": _append._SQLITE_CAS_PLAIN,
    "event": _append._SQLITE_EVENT,
    "app state": _append._SQLITE_APP,
    "user state": _append._SQLITE_USER,
    "explain": _append._SQLITE_EXPLAIN,
}


async def _migrated(url: str) -> None:
    db = Database(create_engine(url), owns_engine=True)
    try:
        await migrate.upgrade(db)
    finally:
        await db.dispose()


@pytest.mark.postgres
async def test_postgres_statements_prepare_against_the_migrated_schema() -> None:
    name = unique_name("adk_stmt")
    url = await create_database(name)
    try:
        await _migrated(url)
        dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
        connection = await asyncpg.connect(dsn)
        try:
            for label, compiled in _PG.items():
                statement = await connection.prepare(compiled.sql)
                # one positional argument per $n, in the order the statement numbers them
                assert len(statement.get_parameters()) == len(compiled.names), label
        finally:
            await connection.close()
    finally:
        await drop_database(name)


@pytest.mark.sqlite
async def test_sqlite_statements_explain_against_the_migrated_schema(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "schema.db"
    await _migrated(f"sqlite+aiosqlite:///{path}")
    connection = sqlite3.connect(path)
    connection.create_function(SQLITE_JSON_MERGE, 2, lambda a, b: a)
    try:
        for label, sql in _SQLITE.items():
            names = {name for name in _named_parameters(sql)}
            connection.execute("EXPLAIN " + sql, dict.fromkeys(names)).fetchall()
            assert names, label
    finally:
        connection.close()


def _named_parameters(sql: str) -> list[str]:
    import re

    return re.findall(r":([a-z]+)", sql)
