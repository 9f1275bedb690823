"""DatabaseSessionService(ttl_seconds=…): an idle session is gone for readers, then swept."""

from __future__ import annotations

import asyncio

import pytest

from adk_runtime.errors import ConfigurationError, SessionNotFoundError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import DatabaseSessionService, session_service_from_url
from adk_runtime.sessions.retention import MAX_TTL_SECONDS

TTL = 1.0


async def test_an_idle_session_is_gone_for_readers_then_swept(sql_url: str) -> None:
    async with (
        DatabaseSessionService(sql_url, ttl_seconds=TTL) as service,
        DatabaseSessionService(sql_url) as raw,  # no TTL: sees what is really stored
    ):
        old = await service.create_session(app_name="a", user_id="u", session_id="old")
        await service.append_event(old, Event(author="user"))
        await asyncio.sleep(TTL + 0.1)
        kept = await service.create_session(app_name="a", user_id="u", session_id="kept")
        await service.append_event(kept, Event(author="user"))

        assert await service.get_session(app_name="a", user_id="u", session_id="old") is None
        listed = await service.list_sessions(app_name="a")
        assert [s.id for s in listed.sessions] == ["kept"]
        with pytest.raises(SessionNotFoundError):
            async with service.claim_session(app_name="a", user_id="u", session_id="old"):
                pass
        # The create of "kept" started a sweep (due: none ran for a TTL) that removes "old".
        for _ in range(50):
            if await raw.get_session(app_name="a", user_id="u", session_id="old") is None:
                break
            await asyncio.sleep(0.05)
        assert await raw.get_session(app_name="a", user_id="u", session_id="old") is None

        # A create of an expired session's id replaces it.
        await asyncio.sleep(TTL + 0.1)
        assert await service.get_session(app_name="a", user_id="u", session_id="kept") is None
        assert await raw.get_session(app_name="a", user_id="u", session_id="kept") is not None
        again = await service.create_session(app_name="a", user_id="u", session_id="kept")
        assert (again.revision, again.events) == (0, [])
        stored = await raw.get_session(app_name="a", user_id="u", session_id="kept")
        assert stored is not None
        assert stored.revision == 0  # the new session, not the expired one


async def test_an_append_to_an_expired_session_writes_nothing(sql_url: str) -> None:
    async with (
        DatabaseSessionService(sql_url, ttl_seconds=TTL) as service,
        DatabaseSessionService(sql_url) as raw,
    ):
        session = await service.create_session(
            app_name="late", user_id="u", session_id="s", state={"k": 1}
        )
        await service.append_event(session, Event(author="user"))
        await asyncio.sleep(TTL + 0.1)  # expired; no create ran since, so nothing swept it
        late = Event(author="agent", actions=EventActions(state_delta={"k": 2, "user:n": 1}))
        with pytest.raises(SessionNotFoundError):
            await service.append_event(session, late)
        stored = await raw.get_session(app_name="late", user_id="u", session_id="s")
        assert stored is not None  # still there, unswept: the append did not revive it
        assert (stored.revision, stored.state) == (1, {"k": 1})
        assert await service.get_session(app_name="late", user_id="u", session_id="s") is None


async def test_ttl_from_the_url(sql_url: str) -> None:
    separator = "&" if "?" in sql_url else "?"
    service = session_service_from_url(f"{sql_url}{separator}ttl_seconds=30")
    assert isinstance(service, DatabaseSessionService)
    try:
        assert service._expiry.ttl == 30.0
    finally:
        await service.close()
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        session_service_from_url(f"{sql_url}{separator}ttl_seconds=soon")
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        DatabaseSessionService(sql_url, ttl_seconds=0)
    with pytest.raises(ConfigurationError, match="ttl_seconds"):
        DatabaseSessionService(sql_url, ttl_seconds=float("nan"))
    for beyond in (1e12, 10**400):  # no date is that far back: capped at a century
        service = DatabaseSessionService(sql_url, ttl_seconds=beyond)
        try:
            assert service._expiry.ttl == MAX_TTL_SECONDS
        finally:
            await service.close()
