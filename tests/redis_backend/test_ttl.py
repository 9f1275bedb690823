"""Idle expiry: a session's keys expire together, every write refreshes them, shared state stays."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis_asyncio

from adk_runtime.sessions import RedisSessionService
from tests.backends import REDIS_URL
from tests.redis_backend.conftest import APP, event

pytestmark = pytest.mark.redis

TTL = 1.5


@pytest.fixture
async def expiring(prefix: str) -> AsyncIterator[RedisSessionService]:
    async with RedisSessionService(REDIS_URL, key_prefix=prefix, ttl_seconds=TTL) as service:
        yield service


async def test_sessions_expire_when_idle_and_shared_state_survives(
    expiring: RedisSessionService, raw: redis_asyncio.Redis, prefix: str
) -> None:
    base = f"{prefix}{{{APP}}}"
    own = [
        f"{base}:{kind}:u:s" for kind in ["session", "state", "events", "eventids", "eventtimes"]
    ]
    shared = [f"{base}:app", f"{base}:user:u", f"{base}:sessions:u", f"{base}:sessions"]
    session = await expiring.create_session(
        app_name=APP, user_id="u", session_id="s", state={"k": 1, "app:a": 1, "user:u": 1}
    )
    await expiring.append_event(session, event(delta={"k": 2}))
    deadlines = {await raw.pexpiretime(key) for key in own}
    assert len(deadlines) == 1  # one deadline for every key of the session
    assert [await raw.pttl(key) for key in shared] == [-1] * len(shared)
    first_deadline = deadlines.pop()

    await asyncio.sleep(0.3)
    await expiring.append_event(session, event(delta={"k": 3}))
    assert {await raw.pexpiretime(key) for key in own} == {await raw.pexpiretime(own[0])}
    assert await raw.pexpiretime(own[0]) >= first_deadline + 250  # refreshed by the write

    expires_at = await raw.pexpiretime(own[0]) / 1000
    await asyncio.sleep(max(0.0, expires_at - time.time()) + 0.3)
    assert await expiring.get_session(app_name=APP, user_id="u", session_id="s") is None
    assert await raw.exists(*own) == 0
    assert (await expiring.list_sessions(app_name=APP, user_id="u")).sessions == []
    # The listing dropped the expired entries; app and user state never expire.
    assert await raw.exists(f"{base}:sessions:u", f"{base}:sessions") == 0
    fresh = await expiring.create_session(app_name=APP, user_id="u", session_id="s")
    assert fresh.state == {"app:a": 1, "user:u": 1}
    assert fresh.revision == 0


async def test_without_ttl_nothing_expires(
    service: RedisSessionService, raw: redis_asyncio.Redis, prefix: str
) -> None:
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    await service.append_event(session, event(delta={"k": 1}))
    keys = [key async for key in raw.scan_iter(match=f"{prefix}*")]
    assert keys
    assert {await raw.pttl(key) for key in keys} == {-1}
