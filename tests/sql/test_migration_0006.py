"""Revision 0006 (sessions keep their creation state): old rows read as "unknown"."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.dialects import postgresql, sqlite

from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.sessions.sql import _driver_statements as driver_statements
from adk_runtime.sessions.sql import _statements as statements
from adk_runtime.sessions.sql.tables import events, sessions
from adk_runtime.sql import Database, migrate
from tests.sql.old_rows import write_old_session


def _event(delta: dict[str, Any]) -> Event:
    return Event(author="a", invocation_id="i", actions=EventActions(state_delta=delta))


async def _creation_states(db: Database) -> dict[str, Any]:
    query = select(sessions.c.id, sessions.c.creation_state)
    async with db.engine.connect() as connection:
        return {row.id: row.creation_state for row in await connection.execute(query)}


async def _count_events(db: Database) -> int:
    async with db.engine.connect() as connection:
        return int((await connection.execute(select(func.count()).select_from(events))).scalar())


async def test_a_session_from_before_0006_keeps_the_older_rule_new_ones_the_fold(
    empty_db: Database,
) -> None:
    await migrate.upgrade(empty_db, "0005")
    first = _event({"x": 1})
    # Created with {"c": 1}, then x=1, then c=2: the row holds the fold, not the creation.
    await write_old_session(empty_db, first, _event({"c": 2}), state={"c": 2, "x": 1})
    await migrate.upgrade(empty_db)
    assert await _creation_states(empty_db) == {"s": None}
    async with DatabaseSessionService(db_engine=empty_db.engine, auto_migrate=False) as service:
        # NULL: unknown, so the older rule (the creation value changed later is not known).
        old_fork = await service.fork_session(
            app_name="a", user_id="u", session_id="s", new_session_id="f", at_event_id=first.id
        )
        assert old_fork.state == {"x": 1}
        # A session created after the upgrade starts from its creation state.
        new = await service.create_session(
            app_name="a", user_id="u", session_id="n", state={"c": 1, "user:k": 1}
        )
        new_first = await service.append_event(new, _event({"x": 1}))
        await service.append_event(new, _event({"c": 2}))
        new_fork = await service.fork_session(
            app_name="a", user_id="u", session_id="n", new_session_id="g", at_event_id=new_first.id
        )
        assert {k: v for k, v in new_fork.state.items() if ":" not in k} == {"c": 1, "x": 1}
    # The fork of an unknown stays unknown; session-scoped keys only are kept.
    assert await _creation_states(empty_db) == {"s": None, "f": None, "n": {"c": 1}, "g": {"c": 1}}
    await migrate.downgrade(empty_db, "0005")
    assert await _count_events(empty_db) == 6
    await migrate.upgrade(empty_db)
    assert await _creation_states(empty_db) == dict.fromkeys(("s", "f", "n", "g"))
    assert await _count_events(empty_db) == 6


def test_get_list_and_append_never_read_the_creation_state() -> None:
    # Only fork, rewind and export read it (statements.CREATION_STATE); reads stay as cheap.
    reads = [*statements.GET.values(), statements.GET_SINCE, *statements.LIST.values()]
    for dialect in (sqlite.dialect(), postgresql.dialect()):
        for statement in reads:
            assert "creation_state" not in str(statement.compile(dialect=dialect))
        assert "creation_state" in str(statements.CREATION_STATE.compile(dialect=dialect))
    assert "creation_state" not in driver_statements.POSTGRESQL["append"].sql
    assert all("creation_state" not in c.sql for c in driver_statements.SQLITE.values())
