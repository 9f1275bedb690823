"""What each step costs on Spanner, counted in RPCs; aborted transactions are run again.

An append is one read-write transaction: a query that begins it inline, then ``Commit`` (two
round trips); a read or a page of a listing is one ``ExecuteSql``.
"""

from __future__ import annotations

import asyncio

from google.genai import types

from adk_runtime.events import Event, EventActions
from adk_runtime.sessions.spanner import SpannerSessionService

APP = "app"


def _event(text: str, **delta: object) -> Event:
    return Event(
        author="user",
        content=types.Content(role="user", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=dict(delta)),
    )


async def _cost(service: SpannerSessionService, call: object) -> int:
    before = service.round_trips
    await call  # type: ignore[misc]
    return service.round_trips - before


async def test_each_step_takes_the_round_trips_it_promises(
    service: SpannerSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    await service.list_sessions(app_name=APP)  # the pool's Spanner sessions exist from here
    assert await _cost(service, service.append_event(session, _event("a", k=1))) == 2
    delta = {"app:x": 1, "user:y": 2, "z": 3}
    assert await _cost(service, service.append_event(session, _event("b", **delta))) == 2
    assert await _cost(service, service.get_session(app_name=APP, user_id="u", session_id="s")) == 1
    assert await _cost(service, service.list_sessions(app_name=APP, page_size=10)) == 1
    assert await _cost(service, service.list_sessions(app_name=APP, user_id="u")) == 1
    create = service.create_session(app_name=APP, user_id="u", session_id="t")
    assert await _cost(service, create) == 2
    delete = service.delete_session(app_name=APP, user_id="u", session_id="t")
    assert await _cost(service, delete) == 1


async def test_a_retried_append_is_three_round_trips_and_writes_nothing(
    service: SpannerSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    event = _event("once")
    await service.append_event(session, event)
    stale = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert stale is not None
    stale.revision, stale.events = 0, []
    # the check, the stored event's payload, the rollback
    assert await _cost(service, service.append_event(stale, event)) == 3
    stored = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert stored is not None
    assert [e.id for e in stored.events] == [event.id]


async def test_aborted_transactions_are_run_again_and_each_event_lands_once(
    service: SpannerSessionService,
) -> None:
    # The emulator runs one read-write transaction at a time and aborts the others: many
    # concurrent appends are many aborts, each retried inside the service.
    sessions = [
        await service.create_session(app_name=APP, user_id=f"u{n}", session_id="s")
        for n in range(6)
    ]

    async def writer(index: int) -> None:
        session = sessions[index]
        for step in range(4):
            await service.append_event(session, _event(f"{index}-{step}", **{"app:last": index}))

    await asyncio.gather(*(writer(n) for n in range(len(sessions))))
    assert service._link.aborted > 0
    for n, session in enumerate(sessions):
        stored = await service.get_session(app_name=APP, user_id=f"u{n}", session_id="s")
        assert stored is not None
        assert [
            e.content.parts[0].text for e in stored.events if e.content and e.content.parts
        ] == [f"{n}-{step}" for step in range(4)]
        assert stored.revision == 4 == session.revision
