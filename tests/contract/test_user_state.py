"""``get_user_state``: one user's ``user:`` state read without a session, on every backend."""

from __future__ import annotations

import pytest

from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService

APP = "app"


async def _write(service: BaseSessionService, user_id: str, delta: dict[str, object]) -> None:
    session = await service.create_session(app_name=APP, user_id=user_id)
    await service.append_event(
        session, Event(author="agent", actions=EventActions(state_delta=delta))
    )


async def test_user_state_is_empty_before_anything_is_stored(
    session_service: BaseSessionService,
) -> None:
    assert await session_service.get_user_state(app_name=APP, user_id="u1") == {}


async def test_user_state_holds_only_user_keys_without_prefix(
    session_service: BaseSessionService,
) -> None:
    await _write(session_service, "u1", {"user:profile": {"name": "Ada"}, "k": 1, "app:a": 2})
    await _write(session_service, "u1", {"user:count": 2})
    state = await session_service.get_user_state(app_name=APP, user_id="u1")
    assert state == {"profile": {"name": "Ada"}, "count": 2}


async def test_user_state_is_isolated_by_user_and_app(
    session_service: BaseSessionService,
) -> None:
    await _write(session_service, "u1", {"user:secret": "mine"})
    assert await session_service.get_user_state(app_name=APP, user_id="u2") == {}
    assert await session_service.get_user_state(app_name="other", user_id="u1") == {}


async def test_user_state_outlives_the_users_sessions_and_is_a_copy(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(
        app_name=APP, user_id="u1", state={"user:tags": ["a"]}
    )
    await session_service.delete_session(app_name=APP, user_id="u1", session_id=session.id)
    state = await session_service.get_user_state(app_name=APP, user_id="u1")
    assert state == {"tags": ["a"]}
    state["tags"].append("b")
    assert await session_service.get_user_state(app_name=APP, user_id="u1") == {"tags": ["a"]}


async def test_user_state_rejects_malformed_ids(session_service: BaseSessionService) -> None:
    await session_service.get_user_state(app_name=APP, user_id="u1")  # the store step exists
    with pytest.raises(InputValidationError):
        await session_service.get_user_state(app_name=APP, user_id="")
