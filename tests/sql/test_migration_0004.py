"""Revision 0004 (open invocations): in place, keeps every row, and downgrades without loss."""

from __future__ import annotations

from sqlalchemy import func, select

from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.sessions.sql.tables import events
from adk_runtime.sql import Database, migrate
from adk_runtime.testing import text_event
from tests.sql.old_rows import write_old_session


async def _event_count(db: Database) -> int:
    async with db.engine.connect() as connection:
        return int((await connection.execute(select(func.count()).select_from(events))).scalar())


async def test_sessions_written_before_0004_record_open_invocations_after_it(
    empty_db: Database,
) -> None:
    await migrate.upgrade(empty_db, "0003")
    await write_old_session(empty_db, text_event("one", role="user"), text_event("two"))
    await migrate.upgrade(empty_db)
    async with DatabaseSessionService(db_engine=empty_db.engine, auto_migrate=False) as service:
        assert await service.list_interrupted_invocations(app_name="a") == []
        claim = service.claim_session(app_name="a", user_id="u", session_id="s", invocation_id="e1")
        async with claim:
            assert claim.open_invocation == "e1"
        [failed] = await service.list_interrupted_invocations(app_name="a")
        assert (failed.invocation_id, failed.status) == ("e1", "failed")
    assert await _event_count(empty_db) == 2


async def test_downgrading_0004_keeps_every_session_and_event(empty_db: Database) -> None:
    await migrate.upgrade(empty_db)
    await write_old_session(empty_db, text_event("one", role="user"), text_event("two"))
    await migrate.downgrade(empty_db, "0003")
    assert await migrate.current_revision(empty_db) == "0003"
    assert await _event_count(empty_db) == 2
    await migrate.upgrade(empty_db)
    assert await _event_count(empty_db) == 2
