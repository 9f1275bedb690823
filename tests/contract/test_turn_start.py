"""A turn's start in one step (issue 50): claim a free session, read it, commit the message.

``BaseSessionService._start_turn`` does what a Runner turn's first three steps do, in one
round trip (PostgreSQL, Redis) or one transaction (SQLite), or takes nothing and leaves the
usual steps to the caller. Every test runs on every backend; "another replica" is a second
service object on the same store (:func:`tests.backends.twin`).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from adk_runtime.errors import SessionBusyError, SessionNotFoundError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, Session, session_service_from_url
from adk_runtime.sessions._prepare import apply_result, prepare_append
from adk_runtime.sessions.base import GetSessionConfig
from adk_runtime.sessions.claims import StartedTurn, TurnStart, new_claim_token
from tests.backends import twin
from tests.stores import Store, durable_params, fresh_store

APP = "turn-start"


def _event(text: str, author: str = "agent", **delta: Any) -> Event:
    return Event(
        author=author,
        invocation_id="inv-0",
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=delta),
    )


def _message(text: str, event_id: str | None = None, **delta: Any) -> TurnStart:
    event = _event(text, author="user", **delta)
    event.invocation_id = "inv-1"
    if event_id is not None:
        event.id = event_id
    blank = Session(id="x", app_name=APP, user_id="u")  # what the Runner prepares it with
    prepared, temp = prepare_append(blank, event)
    return TurnStart(None, prepared, temp)


async def _new(service: BaseSessionService, *texts: str) -> str:
    session = await service.create_session(app_name=APP, user_id="u", state={"n": 0})
    for i, text in enumerate(texts):
        await service.append_event(session, _event(text, n=i + 1))
    return session.id


async def _start(
    service: BaseSessionService, sid: str, start: TurnStart, lease: float = 20.0
) -> StartedTurn | None:
    return await service._start_turn((APP, "u", sid), lease, "inv-1", new_claim_token(), start)


async def _stored(service: BaseSessionService, sid: str) -> Session:
    session = await service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    return session


def _texts(session: Session) -> list[str]:
    return [e.content.parts[0].text for e in session.events if e.content and e.content.parts]


async def _busy(service: BaseSessionService, sid: str) -> bool:
    try:
        async with service.claim_session(app_name=APP, user_id="u", session_id=sid):
            return False
    except SessionBusyError:
        return True


async def test_a_free_session_is_claimed_read_and_given_the_message(
    session_service: BaseSessionService,
) -> None:
    sid = await _new(session_service, "a", "b")
    start = _message("hello", **{"n": 10, "app:seen": 1, "user:name": "Ann", "temp:t": 1})
    started = await _start(session_service, sid, start)
    assert started is not None
    assert started.attempt.token is not None
    assert started.attempt.open_invocation == "inv-1"
    assert not started.attempt.took_over
    # The read is the session as it was before the message...
    assert _texts(started.session) == ["a", "b"]
    assert started.session.revision == 2
    assert started.session.state["n"] == 2
    # ...and the message is committed after it, with its deltas (temp: never stored).
    assert started.message is not None
    assert not started.message.already_stored
    assert started.message.sequence == 3
    stored = await _stored(session_service, sid)
    assert _texts(stored) == ["a", "b", "hello"]
    assert stored.state["n"] == 10
    assert stored.state["app:seen"] == 1
    assert stored.state["user:name"] == "Ann"
    assert "temp:t" not in stored.state
    async with twin(session_service) as other:
        assert await _busy(other, sid)  # the claim is the session's, in the store
    found = await session_service.list_interrupted_invocations(
        app_name=APP, user_id="u", include_running=True
    )
    assert [item.invocation_id for item in found] == ["inv-1"]
    # The session object read carries on: an append under the claim commits after the message.
    session = started.session
    session._fence = started.attempt.token
    apply_result(session, start.message, start.temp, started.message)  # type: ignore[arg-type]
    await session_service.append_event(session, _event("answer", n=11))
    assert _texts(await _stored(session_service, sid)) == ["a", "b", "hello", "answer"]


async def test_a_held_session_is_left_alone(session_service: BaseSessionService) -> None:
    sid = await _new(session_service, "a")
    async with (
        twin(session_service) as other,
        other.claim_session(app_name=APP, user_id="u", session_id=sid),
    ):
        assert await _start(session_service, sid, _message("hello")) is None
        assert await _busy(session_service, sid)
    assert _texts(await _stored(session_service, sid)) == ["a"]


async def test_a_session_left_unreleased_is_left_for_the_take_over(
    session_service: BaseSessionService,
) -> None:
    """A crashed holder's invocation must be finished first: the usual steps do that."""
    sid = await _new(session_service, "a")
    crashed = session_service.claim_session(
        app_name=APP, user_id="u", session_id=sid, lease_seconds=0.2, invocation_id="dead"
    )
    await crashed.__aenter__()
    await crashed.before_releasing_commit()  # it stops renewing, and never releases
    await asyncio.sleep(0.4)
    assert await _start(session_service, sid, _message("hello")) is None
    assert _texts(await _stored(session_service, sid)) == ["a"]
    async with session_service.claim_session(app_name=APP, user_id="u", session_id=sid) as claim:
        assert claim.took_over
        assert claim.open_invocation == "dead"


async def test_a_message_stored_before_is_never_stored_twice(
    session_service: BaseSessionService,
) -> None:
    sid = await _new(session_service)
    first = await _start(session_service, sid, _message("hello", "msg-1"))
    assert first is not None
    assert first.attempt.token is not None
    await session_service._release_claim((APP, "u", sid), first.attempt.token, True)
    again = await _start(session_service, sid, _message("hello", "msg-1"))
    if again is not None:  # the store says so in the step (else: the usual steps will)
        assert again.message is not None
        assert again.message.already_stored
        assert again.message.sequence == 1
    assert _texts(await _stored(session_service, sid)) == ["hello"]


async def test_without_a_message_it_claims_and_reads_the_window_asked_for(
    session_service: BaseSessionService,
) -> None:
    sid = await _new(session_service, "a", "b", "c")
    start = TurnStart(GetSessionConfig(num_recent_events=2))
    started = await _start(session_service, sid, start)
    assert started is not None
    assert started.message is None
    assert _texts(started.session) == ["b", "c"]
    assert started.session.revision == 3
    assert _texts(await _stored(session_service, sid)) == ["a", "b", "c"]


async def test_a_missing_session_is_said_so(session_service: BaseSessionService) -> None:
    with pytest.raises(SessionNotFoundError):
        await _start(session_service, uuid.uuid4().hex, _message("hello"))


@pytest.fixture(params=durable_params())
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    async with fresh_store(request.param, tmp_path) as found:
        yield found


async def test_with_the_cache_it_reads_only_new_events_of_the_same_incarnation(
    store: Store,
) -> None:
    async with (
        session_service_from_url(store.url, **store.kwargs, cache_bytes=1 << 20) as cached,
        store.open() as other,
    ):
        await cached.create_session(app_name=APP, user_id="u", session_id="s")
        session = await other.get_session(app_name=APP, user_id="u", session_id="s")
        assert session is not None
        await other.append_event(session, _event("a"))
        assert _texts(await _stored(cached, "s")) == ["a"]  # cached now
        await other.append_event(session, _event("b"))
        started = await _start(cached, "s", _message("hello"))
        assert started is not None
        assert _texts(started.session) == ["a", "b"]
        assert started.attempt.token is not None
        await cached._release_claim((APP, "u", "s"), started.attempt.token, True)
        # Deleted and created again elsewhere: the new one is read whole, never mixed.
        await other.delete_session(app_name=APP, user_id="u", session_id="s")
        fresh = await other.create_session(app_name=APP, user_id="u", session_id="s")
        await other.append_event(fresh, _event("new"))
        started = await _start(cached, "s", _message("hi"))
        assert started is not None
        assert _texts(started.session) == ["new"]
        assert _texts(await _stored(other, "s")) == ["new", "hi"]
