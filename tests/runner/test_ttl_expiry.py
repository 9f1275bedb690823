"""``ttl_seconds`` on the stores whose expired sessions stay stored until swept (SQL, Spanner).

An idle session is gone for readers and writers at once, then removed by a sweep; a create
of its id replaces it; an append to it writes nothing; app and user state survive it. (Redis
drops the keys themselves: ``tests/redis_backend/test_ttl.py``.)
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adk_runtime.errors import SessionNotFoundError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import session_service_from_url
from tests.stores import Store, fresh_store

TTL = 1.0


@pytest.fixture(
    params=[
        pytest.param("sqlite", marks=pytest.mark.sqlite),
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("spanner", marks=pytest.mark.spanner),
    ]
)
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    async with fresh_store(request.param, tmp_path) as store:
        yield store


async def test_an_idle_session_is_gone_for_readers_then_swept(store: Store) -> None:
    async with (
        session_service_from_url(store.url, **store.kwargs, ttl_seconds=TTL) as service,
        store.open() as raw,  # no TTL: sees what is really stored
    ):
        old = await service.create_session(app_name="a", user_id="u", session_id="old")
        await service.append_event(old, Event(author="user"))
        await asyncio.sleep(TTL + 0.1)
        kept = await service.create_session(app_name="a", user_id="u", session_id="kept")
        await service.append_event(kept, Event(author="user"))

        assert await service.get_session(app_name="a", user_id="u", session_id="old") is None
        listed = await service.list_sessions(app_name="a")
        assert [s.id for s in listed.sessions] == ["kept"]
        listed = await service.list_sessions(app_name="a", user_id="u")
        assert [s.id for s in listed.sessions] == ["kept"]
        with pytest.raises(SessionNotFoundError):
            async with service.claim_session(app_name="a", user_id="u", session_id="old"):
                pass
        with pytest.raises(SessionNotFoundError):
            await service.fork_session(app_name="a", user_id="u", session_id="old")
        # The create of "kept" started a sweep (due: none ran for a TTL) that removes "old".
        for _ in range(100):
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
        assert stored.events == []


async def test_an_append_to_an_expired_session_writes_nothing(store: Store) -> None:
    async with (
        session_service_from_url(store.url, **store.kwargs, ttl_seconds=TTL) as service,
        store.open() as raw,
    ):
        session = await service.create_session(
            app_name="late", user_id="u", session_id="s", state={"k": 1, "app:a": 1, "user:b": 1}
        )
        await service.append_event(session, Event(author="user"))
        await asyncio.sleep(TTL + 0.1)  # expired; no create ran since, so nothing swept it
        late = Event(author="agent", actions=EventActions(state_delta={"k": 2, "user:n": 1}))
        with pytest.raises(SessionNotFoundError):
            await service.append_event(session, late)
        stored = await raw.get_session(app_name="late", user_id="u", session_id="s")
        assert stored is not None  # still there, unswept: the append did not revive it
        assert (stored.revision, stored.state) == (1, {"k": 1, "app:a": 1, "user:b": 1})
        assert await service.get_session(app_name="late", user_id="u", session_id="s") is None
        # App and user state are not the session's: they outlive it.
        fresh = await service.create_session(app_name="late", user_id="u", session_id="s")
        assert fresh.state == {"app:a": 1, "user:b": 1}
