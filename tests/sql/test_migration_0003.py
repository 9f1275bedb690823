"""Revision 0003 (session claims): in place, keeps every row, and downgrades without loss."""

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


async def test_sessions_written_before_0003_are_claimed_and_written_after_it(
    empty_db: Database,
) -> None:
    await migrate.upgrade(empty_db, "0002")
    await write_old_session(empty_db, text_event("one", role="user"), text_event("two"))
    await migrate.upgrade(empty_db)
    assert await migrate.current_revision(empty_db) == await migrate.head_revision()
    async with DatabaseSessionService(db_engine=empty_db.engine, auto_migrate=False) as service:
        session = await service.get_session(app_name="a", user_id="u", session_id="s")
        assert session is not None
        assert session.revision == 2
        async with service.claim_session(app_name="a", user_id="u", session_id="s") as claim:
            assert claim.token is not None  # a session written before claims can be claimed
            session._fence = claim.token
            await service.append_event(session, text_event("three"))
    assert await _event_count(empty_db) == 3


async def test_downgrading_0003_keeps_every_session_and_event(empty_db: Database) -> None:
    await migrate.upgrade(empty_db)
    await write_old_session(empty_db, text_event("one", role="user"), text_event("two"))
    await migrate.downgrade(empty_db, "0002")
    assert await migrate.current_revision(empty_db) == "0002"
    # Dropping the columns must not recreate (drop) adk_sessions: that would cascade.
    assert await _event_count(empty_db) == 2
    await migrate.upgrade(empty_db)
    assert await _event_count(empty_db) == 2
