"""Rows read from Spanner as sessions, events and states."""

from __future__ import annotations

from typing import Any

from adk_runtime import codec
from adk_runtime.events import Event, event_from_stored
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.spanner._values import seconds
from adk_runtime.sessions.state import merge_state

__all__ = ["events_of", "session_of", "state_of"]


def state_of(text: str | None) -> dict[str, Any]:
    """A stored state (JSON text of encoded values; None: no row), still encoded."""
    if text is None:
        return {}
    loaded: dict[str, Any] = codec.loads(text)
    return loaded


def events_of(session_id: str, newest_first: list[tuple[int, str]]) -> list[Event]:
    """Events read as ``(sequence, payload)`` pairs, newest first, oldest first."""
    return [
        event_from_stored(payload, session_id, sequence - 1)
        for sequence, payload in reversed(newest_first)
    ]


def session_of(app_name: str, row: list[Any], events: list[Event] | None = None) -> Session:
    """A session from the columns of ``_queries.SESSION_COLUMNS`` (merged state)."""
    user_id, session_id, revision, incarnation, state, mtime, app_state, user_state = row[:8]
    session = Session(
        id=session_id,
        app_name=app_name,
        user_id=user_id,
        state=merge_state(
            codec.decode_state(state_of(state)),
            codec.decode_state(state_of(app_state)),
            codec.decode_state(state_of(user_state)),
        ),
        events=events or [],
        last_update_time=seconds(mtime),
        revision=revision,
    )
    session._incarnation = incarnation
    return session
