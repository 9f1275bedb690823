"""A turn's last event carries its claim's release (issue 50): one round trip, not two.

Every test runs on every backend; "another replica" is a second service object on the same
store (:func:`tests.backends.twin`).
"""

from __future__ import annotations

import asyncio
import uuid

import pytest

from adk_runtime.errors import ClaimLostError, SessionBusyError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, Session
from adk_runtime.sessions.claims import SessionClaim
from tests.backends import twin

APP = "release-commit"


def _event(text: str) -> Event:
    return Event(author="x", invocation_id="inv", actions=EventActions(state_delta={"t": text}))


async def _new(service: BaseSessionService) -> str:
    session = await service.create_session(app_name=APP, user_id="u", session_id=uuid.uuid4().hex)
    return session.id


async def _read(service: BaseSessionService, sid: str, claim: SessionClaim) -> Session:
    session = await service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    session._fence = claim.token
    return session


def _claim(service: BaseSessionService, sid: str, **kwargs: float | str) -> SessionClaim:
    return service.claim_session(app_name=APP, user_id="u", session_id=sid, **kwargs)  # type: ignore[arg-type]


async def _releasing_append(
    service: BaseSessionService, claim: SessionClaim, session: Session, event: Event
) -> bool:
    """Append ``event`` asking its commit to release ``claim``; whether the store did."""
    await claim.before_releasing_commit()
    session._release_on_commit = True
    try:
        await service.append_event(session, event)
    finally:
        released = not session._release_on_commit
        claim.after_releasing_commit(released)
        session._release_on_commit = False
    return released


async def _open(service: BaseSessionService, sid: str) -> list[str]:
    found = await service.list_interrupted_invocations(
        app_name=APP, user_id="u", session_id=sid, include_running=True
    )
    return [item.invocation_id for item in found]


async def test_the_last_commit_releases_the_claim_and_closes_the_invocation(
    session_service: BaseSessionService,
) -> None:
    sid = await _new(session_service)
    async with _claim(session_service, sid, invocation_id="inv") as claim:
        session = await _read(session_service, sid, claim)
        await session_service.append_event(session, _event("first"))
        assert await _open(session_service, sid) == ["inv"]
        assert await _releasing_append(session_service, claim, session, _event("last"))
        # Released with the commit, while this holder has not left yet: another replica
        # claims at once, and finds no crashed holder to take over from.
        assert await _open(session_service, sid) == []
        async with twin(session_service) as other, _claim(other, sid) as next_claim:
            assert next_claim.token not in (None, claim.token)
            assert not next_claim.took_over
    stored = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert stored is not None
    assert [e.actions.state_delta["t"] for e in stored.events] == ["first", "last"]
    assert stored.state["t"] == "last"


async def test_the_released_holders_exit_leaves_the_next_claim_alone(
    session_service: BaseSessionService,
) -> None:
    sid = await _new(session_service)
    async with twin(session_service) as other:
        first = _claim(session_service, sid)
        await first.__aenter__()
        session = await _read(session_service, sid, first)
        assert await _releasing_append(session_service, first, session, _event("last"))
        async with _claim(other, sid) as second:
            await first.__aexit__(None, None, None)  # the first turn's exit comes late
            with pytest.raises(SessionBusyError):
                async with _claim(session_service, sid, wait_seconds=0.05):
                    pass
            later = await _read(other, sid, second)
            await other.append_event(later, _event("second"))


async def test_an_event_after_the_releasing_commit_writes_only_until_another_claim(
    session_service: BaseSessionService,
) -> None:
    sid = await _new(session_service)
    async with twin(session_service) as other, _claim(session_service, sid) as claim:
        session = await _read(session_service, sid, claim)
        assert await _releasing_append(session_service, claim, session, _event("last"))
        # Nobody claimed since: the holder's next event still commits (an agent that
        # said "last" too early loses nothing)...
        await session_service.append_event(session, _event("trailing"))
        async with _claim(other, sid):
            # ...and once another turn holds the session, it writes nothing more.
            with pytest.raises(ClaimLostError):
                await session_service.append_event(session, _event("too late"))
    stored = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert stored is not None
    assert [e.actions.state_delta["t"] for e in stored.events] == ["last", "trailing"]


async def test_an_overtaken_holders_releasing_commit_writes_and_releases_nothing(
    session_service: BaseSessionService,
) -> None:
    sid = await _new(session_service)
    stalled = _claim(session_service, sid, lease_seconds=0.2)
    async with twin(session_service) as other, stalled:
        session = await _read(session_service, sid, stalled)
        await stalled.before_releasing_commit()  # no renewal from here on
        await asyncio.sleep(0.4)  # its lease runs out
        async with _claim(other, sid) as taker:
            assert taker.took_over
            session._release_on_commit = True
            with pytest.raises(ClaimLostError):
                await session_service.append_event(session, _event("stale"))
            assert session._release_on_commit  # the store released nothing
            stalled.after_releasing_commit(False)
            with pytest.raises(SessionBusyError):  # the taker still holds it
                async with _claim(session_service, sid, wait_seconds=0.05):
                    pass
    stored = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert stored is not None
    assert stored.events == []
