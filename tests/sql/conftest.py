from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from adk_runtime.sql import Database, create_engine
from tests.sql_support import (
    create_database,
    drop_database,
    run_in_thread,
    truncate_all,
    unique_name,
    upgrade,
)

DIALECTS = [
    pytest.param("sqlite", marks=pytest.mark.sqlite),
    pytest.param("postgres", marks=pytest.mark.postgres),
]


@pytest.fixture(params=DIALECTS)
def sql_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated, empty database (a SQLite file, or the run's PostgreSQL database)."""
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"
        run_in_thread(upgrade, url)
        yield url
        return
    url = request.getfixturevalue("postgres_url")
    try:
        yield url
    finally:
        run_in_thread(truncate_all, url)


@pytest.fixture(params=DIALECTS)
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with no schema at all (a new SQLite file, or a new PostgreSQL database)."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}"
        return
    name = unique_name("adk_empty")
    url = run_in_thread(create_database, name)
    try:
        yield url
    finally:
        run_in_thread(drop_database, name)


@pytest.fixture
async def empty_db(empty_url: str) -> AsyncIterator[Database]:
    """:func:`empty_url` opened as a :class:`Database` (disposed after the test)."""
    db = Database(create_engine(empty_url), owns_engine=True)
    try:
        yield db
    finally:
        await db.dispose()
