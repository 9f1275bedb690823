"""The in-memory store's deprecated synchronous methods (google-adk's ``*_sync``)."""

from __future__ import annotations

import asyncio

import pytest

from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import InMemorySessionService


def test_sync_methods_round_trip_without_a_loop(caplog: pytest.LogCaptureFixture) -> None:
    service = InMemorySessionService()
    session = service.create_session_sync(app_name="a", user_id="u", state={"k": 1}, session_id="s")
    assert (session.id, session.state) == ("s", {"k": 1})
    asyncio.run(
        service.append_event(
            session, Event(author="agent", actions=EventActions(state_delta={"k": 2}))
        )
    )
    loaded = service.get_session_sync(app_name="a", user_id="u", session_id="s")
    assert loaded is not None
    assert (loaded.revision, loaded.state) == (1, {"k": 2})
    assert [s.id for s in service.list_sessions_sync(app_name="a").sessions] == ["s"]
    service.delete_session_sync(app_name="a", user_id="u", session_id="s")
    assert service.get_session_sync(app_name="a", user_id="u", session_id="s") is None
    assert "create_session_sync is deprecated" in caplog.text


def test_sync_methods_work_from_a_thread_running_a_loop() -> None:
    service = InMemorySessionService()

    async def inside_a_loop() -> str:
        return service.create_session_sync(app_name="a", user_id="u").id

    session_id = asyncio.run(inside_a_loop())
    assert (
        asyncio.run(service.get_session(app_name="a", user_id="u", session_id=session_id))
        is not None
    )
