"""Rows written the way an older schema holds them (no service: it runs on the newest only)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import insert

from adk_runtime.events import Event, event_to_json
from adk_runtime.sessions.sql.tables import events, sessions, user_states
from adk_runtime.sql import Database


async def write_old_session(
    db: Database,
    *stored: Event,
    session_id: str = "s",
    state: dict[str, Any] | None = None,
    user_state: dict[str, Any] | None = None,
) -> None:
    """Store session ``("a", "u", session_id)`` with ``stored`` as its events (revision = count).

    Only the columns every revision since 0001 has are written.
    """
    now = datetime.now(timezone.utc)
    async with db.engine.begin() as connection:
        await connection.execute(
            insert(sessions).values(
                app_name="a",
                user_id="u",
                id=session_id,
                state=state or {},
                revision=len(stored),
                create_time=now,
                update_time=now,
            )
        )
        if user_state:
            await connection.execute(
                insert(user_states).values(
                    app_name="a", user_id="u", state=user_state, update_time=now
                )
            )
        for sequence, event in enumerate(stored, start=1):
            await connection.execute(
                insert(events).values(
                    app_name="a",
                    user_id="u",
                    session_id=session_id,
                    sequence=sequence,
                    id=event.id,
                    invocation_id=event.invocation_id,
                    timestamp=event.timestamp,
                    payload=event_to_json(event),
                )
            )
