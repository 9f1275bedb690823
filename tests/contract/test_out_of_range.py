"""Integers (and numbers) from a caller that no store can hold: a typed error, nothing written.

Every backend answers alike: a revision no store can be at is stale (as the in-memory store
always said), other values are typed errors raised before any backend sees them, and one such
append among many concurrent ones fails alone (SQLite group commit, Redis pipelines).
"""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from adk_runtime.errors import InputValidationError, SerializationError, StaleSessionError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, GetSessionConfig, Session

APP = "ranges"
BEYOND_FLOATS = 10**400
HUGE = pytest.param(BEYOND_FLOATS, id="1e400")


async def _fresh(service: BaseSessionService) -> Session:
    return await service.create_session(app_name=APP, user_id="u", session_id=uuid.uuid4().hex)


async def _stored(service: BaseSessionService, session: Session) -> Session:
    loaded = await service.get_session(app_name=APP, user_id="u", session_id=session.id)
    assert loaded is not None
    return loaded


async def _assert_untouched(service: BaseSessionService, session: Session) -> None:
    stored = await _stored(service, session)
    assert stored.revision == 0
    assert stored.events == []
    assert stored.state == {}


@pytest.mark.parametrize("revision", [2**31, 2**63, 2**64, -1, -(2**63) - 1])
async def test_a_revision_no_store_can_be_at_is_stale_and_writes_nothing(
    session_service: BaseSessionService, revision: int
) -> None:
    session = await _fresh(session_service)
    session.revision = revision
    with pytest.raises(StaleSessionError):
        await session_service.append_event(
            session, Event(author="x", actions=EventActions(state_delta={"k": 1, "app:a": 1}))
        )
    await _assert_untouched(session_service, session)
    assert "app:a" not in (await _fresh(session_service)).state


@pytest.mark.parametrize("revision", ["0", 0.0, True, None])
async def test_a_revision_that_is_not_an_integer_is_refused(
    session_service: BaseSessionService, revision: Any
) -> None:
    session = await _fresh(session_service)
    session.revision = revision
    with pytest.raises(InputValidationError, match=r"session\.revision"):
        await session_service.append_event(session, Event(author="x"))
    await _assert_untouched(session_service, session)


async def test_one_out_of_range_append_among_concurrent_ones_fails_alone(
    session_service: BaseSessionService,
) -> None:
    sessions = [await _fresh(session_service) for _ in range(20)]
    sessions[7].revision = 2**63
    results = await asyncio.gather(
        *(
            session_service.append_event(
                s, Event(author="x", actions=EventActions(state_delta={"k": k}))
            )
            for k, s in enumerate(sessions)
        ),
        return_exceptions=True,
    )
    assert isinstance(results[7], StaleSessionError)
    assert all(isinstance(r, Event) for k, r in enumerate(results) if k != 7), results
    await _assert_untouched(session_service, sessions[7])
    for k, session in enumerate(sessions):
        if k != 7:
            assert (await _stored(session_service, session)).state == {"k": k}


async def test_an_event_timestamp_beyond_every_float_is_refused(
    session_service: BaseSessionService,
) -> None:
    session = await _fresh(session_service)
    event = Event(author="x")
    event.timestamp = BEYOND_FLOATS  # assignment is not validated
    with pytest.raises(SerializationError, match=r"event\.timestamp"):
        await session_service.append_event(session, event)
    await _assert_untouched(session_service, session)


async def test_an_integer_event_timestamp_is_stored_as_seconds(
    session_service: BaseSessionService,
) -> None:
    session = await _fresh(session_service)
    event = Event(author="x")
    event.timestamp = 2**63  # a float can hold it (rounded), as validation would have made it
    await session_service.append_event(session, event)
    (stored,) = (await _stored(session_service, session)).events
    assert stored.timestamp == float(2**63)
    assert isinstance(stored.timestamp, float)


@pytest.mark.parametrize("after", [HUGE, pytest.param(-BEYOND_FLOATS, id="-1e400")])
async def test_an_after_timestamp_beyond_every_float_is_refused(
    session_service: BaseSessionService, after: int
) -> None:
    session = await _fresh(session_service)
    config = GetSessionConfig.model_construct(after_timestamp=after)
    with pytest.raises(InputValidationError, match="after_timestamp"):
        await session_service.get_session(
            app_name=APP, user_id="u", session_id=session.id, config=config
        )


@pytest.mark.parametrize("after", [2**63, 1e300, -1e300])
async def test_a_far_after_timestamp_is_the_natural_answer(
    session_service: BaseSessionService, after: float
) -> None:
    session = await _fresh(session_service)
    await session_service.append_event(session, Event(author="x"))
    got = await session_service.get_session(
        app_name=APP,
        user_id="u",
        session_id=session.id,
        config=GetSessionConfig(after_timestamp=after),
    )
    assert got is not None
    assert len(got.events) == (1 if after < 0 else 0)


@pytest.mark.parametrize("key", [1, "a\x00", "k\ud800", "app:\udc00", "user:\x00"])
async def test_a_state_key_no_store_can_hold_is_refused_and_nothing_is_created(
    session_service: BaseSessionService, key: Any
) -> None:
    with pytest.raises(SerializationError, match=r"state\["):
        await session_service.create_session(
            app_name=APP, user_id="u", session_id="s", state={key: 1, "user:ok": 1}
        )
    assert await session_service.get_session(app_name=APP, user_id="u", session_id="s") is None
    assert await session_service.get_user_state(app_name=APP, user_id="u") == {}


async def test_a_state_delta_key_that_is_not_a_string_is_refused(
    session_service: BaseSessionService,
) -> None:
    session = await _fresh(session_service)
    event = Event(author="x")
    event.actions.state_delta[1] = "x"  # type: ignore[index]
    with pytest.raises(SerializationError, match=r"state_delta\[1\]"):
        await session_service.append_event(session, event)
    await _assert_untouched(session_service, session)


@pytest.mark.parametrize("name", ["lease_seconds", "wait_seconds"])
@pytest.mark.parametrize("seconds", [HUGE, float("nan"), float("inf"), -1])
async def test_a_claim_duration_out_of_range_is_refused(
    session_service: BaseSessionService, name: str, seconds: float
) -> None:
    session = await _fresh(session_service)
    with pytest.raises(InputValidationError, match=name):
        session_service.claim_session(
            app_name=APP, user_id="u", session_id=session.id, **{name: seconds}
        )
