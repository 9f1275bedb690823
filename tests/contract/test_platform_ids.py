"""Ids and timestamps follow adk_runtime.platform's providers on every backend.

A session created (or forked) without an id takes the id provider's next id; events made
while a time provider is set carry its time, and both read back unchanged from the store.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Iterator

import pytest

from adk_runtime.events import Event, EventActions
from adk_runtime.platform import time as platform_time
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.sessions import BaseSessionService

APP = "platform-ids"
MOMENT = 1_700_000_000.25


@pytest.fixture
def ids() -> Iterator[list[str]]:
    """A counting id provider for this test; the list holds every id it gave."""
    prefix = uuid.uuid4().hex[:8]
    counter = itertools.count(1)
    given: list[str] = []

    def next_id() -> str:
        given.append(f"{prefix}-{next(counter):04d}")
        return given[-1]

    platform_uuid.set_id_provider(next_id)
    platform_time.set_time_provider(lambda: MOMENT)
    try:
        yield given
    finally:
        platform_uuid.reset_id_provider()
        platform_time.reset_time_provider()


async def test_sessions_and_events_take_the_providers_ids_and_time(
    session_service: BaseSessionService, ids: list[str]
) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u")
    assert session.id == ids[0]
    event = Event(author="agent", actions=EventActions(state_delta={"n": 1}))
    assert (event.id, event.timestamp) == (ids[1], MOMENT)
    await session_service.append_event(session, event)

    fork = await session_service.fork_session(app_name=APP, user_id="u", session_id=session.id)
    assert fork.id == ids[2]

    stored = await session_service.get_session(app_name=APP, user_id="u", session_id=session.id)
    assert stored is not None
    assert [(e.id, e.timestamp) for e in stored.events] == [(ids[1], MOMENT)]
    forked = await session_service.get_session(app_name=APP, user_id="u", session_id=fork.id)
    assert forked is not None
    assert [e.id for e in forked.events] == [ids[1]]


async def test_after_a_reset_ids_are_random_again(
    session_service: BaseSessionService, ids: list[str]
) -> None:
    platform_uuid.reset_id_provider()
    platform_time.reset_time_provider()
    session = await session_service.create_session(app_name=APP, user_id="u")
    assert str(uuid.UUID(session.id)) == session.id
    assert ids == []
    assert Event(author="x").timestamp != MOMENT
