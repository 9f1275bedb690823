"""Test databases for the SQL backends: a SQLite file per test, one PostgreSQL database per run.

The PostgreSQL database is created (and migrated) once per test run under a unique name and
dropped at the end; each test starts from empty tables and empties them afterwards. The
server comes from ``ADK_RUNTIME_TEST_POSTGRES_URL`` (default: the local server); a server
that cannot be reached fails the tests that need it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from adk_runtime.sql import Database, create_engine, load_all_tables, migrate
from tests.stores import POSTGRES_URL

POSTGRES_SERVER_URL = POSTGRES_URL  # the test server (tests/stores.py)


def _dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def create_database(name: str) -> str:
    """Create an empty database ``name`` on the test server and return its URL."""
    connection = await asyncpg.connect(_dsn(POSTGRES_SERVER_URL))
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()
    return make_url(POSTGRES_SERVER_URL).set(database=name).render_as_string(hide_password=False)


async def drop_database(name: str) -> None:
    """Drop database ``name`` on the test server, closing any connection still open."""
    connection = await asyncpg.connect(_dsn(POSTGRES_SERVER_URL))
    try:
        await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await connection.close()


def unique_name(prefix: str = "adk_test") -> str:
    return f"{prefix}_{os.getpid()}_{uuid.uuid4().hex[:8]}"


async def upgrade(url: str) -> None:
    db = Database(create_engine(url), owns_engine=True)
    try:
        await migrate.upgrade(db)
    finally:
        await db.dispose()


async def truncate_all(url: str) -> None:
    """Empty every adk_runtime table (the schema stays)."""
    names = ", ".join(table.name for table in load_all_tables().sorted_tables)
    db = Database(create_engine(url), owns_engine=True)
    try:
        async with db.write() as connection:
            await connection.execute(text(f"TRUNCATE {names} CASCADE"))
    finally:
        await db.dispose()


T = TypeVar("T")


def run_in_thread(func: Callable[..., Awaitable[T]], *args: Any) -> T:
    """Run ``func(*args)`` on a fresh event loop in a worker thread (safe inside a loop)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(func(*args))).result()  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A migrated database of this test run on the PostgreSQL server."""
    name = unique_name()
    url = run_in_thread(create_database, name)
    try:
        run_in_thread(upgrade, url)
        yield url
    finally:
        run_in_thread(drop_database, name)
