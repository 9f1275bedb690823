"""PostgreSQL through PgBouncer in transaction pooling mode (a real pgbouncer process).

With ``?statement_cache_size=0`` every operation, migrations and the turn claims work through
the pooler; without it the driver's named prepared statements collide on shared server
connections, and that is a ConfigurationError saying what to add, never a raw driver error.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from adk_runtime.errors import ConfigurationError
from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.sql import Database, create_engine, migrate
from adk_runtime.testing import text_event
from tests.serving import run_cli
from tests.sql.pgbouncer import running_pgbouncer
from tests.sql_support import create_database, drop_database, run_in_thread, unique_name

pytestmark = [pytest.mark.postgres, pytest.mark.timeout(180)]


@pytest.fixture(scope="module")
def direct_url() -> Iterator[str]:
    """A fresh, empty database on the test server (reached directly)."""
    name = unique_name("adk_pgb")
    url = run_in_thread(create_database, name)
    try:
        yield url
    finally:
        run_in_thread(drop_database, name)


@pytest.fixture(scope="module")
def pooled_url(direct_url: str) -> Iterator[str]:
    """``direct_url`` through PgBouncer (transaction pooling, two server connections)."""
    with running_pgbouncer(direct_url, pool=2) as url:
        yield url


def test_migrations_run_through_pgbouncer(pooled_url: str) -> None:
    url = f"{pooled_url}?statement_cache_size=0"
    upgraded = run_cli("db", "upgrade", "--url", url)
    assert upgraded.returncode == 0, upgraded.stderr
    checked = run_cli("db", "check", "--url", url)
    assert checked.returncode == 0, checked.stderr
    assert "up to date" in checked.stdout + checked.stderr


async def _migrate(direct_url: str) -> None:
    """Bring the schema up to date directly (tests may run alone or on any xdist worker)."""
    db = Database(create_engine(direct_url), owns_engine=True)
    try:
        await migrate.upgrade(db)
    finally:
        await db.dispose()


async def test_every_operation_and_claim_works_through_pgbouncer(
    pooled_url: str, direct_url: str
) -> None:
    await _migrate(direct_url)
    async with DatabaseSessionService(f"{pooled_url}?statement_cache_size=0") as service:

        async def conversation(i: int) -> None:
            sid = f"s{i}"
            session = await service.create_session(app_name="a", user_id="u", session_id=sid)
            for turn in range(8):
                async with service.claim_session(
                    app_name="a", user_id="u", session_id=sid, wait_seconds=5
                ) as claim:
                    session._fence = claim.token
                    await service.append_event(
                        session, text_event(f"t{turn}", state_delta={"n": turn})
                    )
                again = await service.get_session(app_name="a", user_id="u", session_id=sid)
                assert again is not None
                assert again.revision == turn + 1

        await asyncio.gather(*(conversation(i) for i in range(24)))
        listed = await service.list_sessions(app_name="a", user_id="u", page_size=10)
        assert len(listed.sessions) == 10
        assert listed.next_page_token
        for i in range(24):
            stored = await service.get_session(app_name="a", user_id="u", session_id=f"s{i}")
            assert stored is not None
            assert [
                e.content.parts[0].text for e in stored.events if e.content and e.content.parts
            ] == [f"t{turn}" for turn in range(8)]
            assert stored.state["n"] == 7
            await service.delete_session(app_name="a", user_id="u", session_id=f"s{i}")
        assert (await service.list_sessions(app_name="a", user_id="u")).sessions == []


async def test_without_statement_cache_size_0_the_error_says_what_to_add(
    pooled_url: str, direct_url: str
) -> None:
    await _migrate(direct_url)  # else the error would be the missing schema
    # Cached named statements are prepared on one server connection and run on another, or
    # collide with another client's of the same name.
    with pytest.raises(ConfigurationError, match=r"statement_cache_size=0"):
        await _list_through_fresh_clients(pooled_url, tries=10)


async def _list_through_fresh_clients(url: str, tries: int) -> None:
    for _ in range(tries):
        async with DatabaseSessionService(url, auto_migrate=False) as service:

            async def reader(i: int) -> None:
                for _ in range(5):
                    await service.list_sessions(app_name="a", user_id=f"u{i}", page_size=1)
                    await service.get_session(app_name="a", user_id="u", session_id=f"s{i}")

            # Every reader ends before the service closes (no connection left checked out).
            outcomes = await asyncio.gather(*(reader(i) for i in range(16)), return_exceptions=True)
            for outcome in outcomes:
                if isinstance(outcome, BaseException):
                    raise outcome
