"""Revision 0005 (claim tokens never reused): 63-bit tokens stored, and a lossless downgrade."""

from __future__ import annotations

from sqlalchemy import func, select

from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.sessions.sql.tables import events, sessions
from adk_runtime.sql import Database, migrate
from adk_runtime.testing import text_event
from tests.sql.old_rows import write_old_session


async def _scalar(db: Database, query: object) -> int:
    async with db.engine.connect() as connection:
        return int((await connection.execute(query)).scalar())  # type: ignore[call-overload]


async def test_a_session_from_before_0005_takes_63_bit_tokens_and_downgrades(
    empty_db: Database,
) -> None:
    await migrate.upgrade(empty_db, "0004")
    await write_old_session(empty_db, text_event("one", role="user"))
    await migrate.upgrade(empty_db)
    async with DatabaseSessionService(db_engine=empty_db.engine, auto_migrate=False) as service:
        session = await service.get_session(app_name="a", user_id="u", session_id="s")
        assert session is not None
        key = ("a", "u", "s")
        tokens = set()
        for _ in range(3):  # random 63-bit tokens: beyond a 32-bit column, on every dialect
            attempt = await service._try_claim(key, 20)
            assert attempt.token is not None
            tokens.add(attempt.token)
            await service._release_claim(key, attempt.token)
        attempt = await service._try_claim(key, 20)  # held across the downgrade below
        assert attempt.token is not None
        assert attempt.token not in tokens
        assert max(tokens | {attempt.token}) > 2**31
        session._fence = attempt.token
        await service.append_event(session, text_event("two"))
    stored = select(sessions.c.claim_token)
    assert await _scalar(empty_db, stored) == attempt.token
    await migrate.downgrade(empty_db, "0004")
    assert 0 <= await _scalar(empty_db, stored) < 2**31
    assert await _scalar(empty_db, select(func.count()).select_from(events)) == 2
    await migrate.upgrade(empty_db)
    assert await _scalar(empty_db, select(func.count()).select_from(events)) == 2
