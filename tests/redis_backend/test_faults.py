"""Lost replies, dropped connections and a server that is gone: clear errors, consistent data."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
import redis.asyncio as redis_asyncio

from adk_runtime.errors import BackendUnavailableError
from adk_runtime.sessions import RedisSessionService, Session
from tests.backends import REDIS_URL
from tests.redis_backend.conftest import APP, event
from tests.redis_backend.proxy import FlakyProxy

pytestmark = pytest.mark.redis


@pytest.fixture
async def proxy() -> AsyncIterator[FlakyProxy]:
    async with FlakyProxy() as running:
        yield running


@pytest.fixture
async def proxied(proxy: FlakyProxy, prefix: str) -> AsyncIterator[RedisSessionService]:
    async with RedisSessionService(proxy.url, key_prefix=prefix) as service:
        yield service


async def _stored(raw: redis_asyncio.Redis, prefix: str, session: Session) -> tuple[int, int, int]:
    """(revision, events, indexed event ids) as Redis holds them."""
    base = f"{prefix}{{{session.app_name}}}"
    suffix = f"{session.user_id}:{session.id}"
    revision = int(await raw.hget(f"{base}:session:{suffix}", "rev") or -1)
    return (
        revision,
        await raw.llen(f"{base}:events:{suffix}"),
        await raw.hlen(f"{base}:eventids:{suffix}"),
    )


async def test_a_lost_reply_is_retried_without_doubling(
    proxied: RedisSessionService, proxy: FlakyProxy, raw: redis_asyncio.Redis, prefix: str
) -> None:
    proxy.cut_on = b"EVALSHA"
    session = await proxied.create_session(app_name=APP, user_id="u", session_id="s")
    assert proxy.cuts == 1  # the create ran, its reply was lost, the retry found it
    proxy.cut_on = b"EVALSHA"
    item = event("once", {"k": 1, "user:n": 1})
    returned = await proxied.append_event(session, item)
    assert proxy.cuts == 2
    assert returned.id == item.id
    assert (session.revision, session.state) == (1, {"k": 1, "user:n": 1})
    assert await _stored(raw, prefix, session) == (1, 1, 1)


async def test_a_connection_dropped_after_the_write_fails_cleanly_and_recovers(
    proxied: RedisSessionService, proxy: FlakyProxy, raw: redis_asyncio.Redis, prefix: str
) -> None:
    session = await proxied.create_session(app_name=APP, user_id="u", session_id="s")
    proxy.cut_on, proxy.refuse_after_cut = b"EVALSHA", True
    item = event("maybe", {"k": 1})
    with pytest.raises(BackendUnavailableError, match=r"127\.0\.0\.1") as info:
        await proxied.append_event(session, item)
    assert "retrying it is safe" in str(info.value)
    # Redis ran the script before the connection dropped: all of it is there, once.
    assert await _stored(raw, prefix, session) == (1, 1, 1)
    assert session.revision == 0
    proxy.accepting = True
    again = await proxied.append_event(session, item.model_copy(deep=True))
    assert again.id == item.id
    assert (session.revision, session.state) == (1, {"k": 1})
    await proxied.append_event(session, event("next"))
    assert await _stored(raw, prefix, session) == (2, 2, 2)


async def test_a_connection_dropped_before_the_write_writes_nothing(
    proxied: RedisSessionService, proxy: FlakyProxy, raw: redis_asyncio.Redis, prefix: str
) -> None:
    session = await proxied.create_session(app_name=APP, user_id="u", session_id="s")
    proxy.cut_on, proxy.cut_before_forwarding, proxy.refuse_after_cut = b"EVALSHA", True, True
    with pytest.raises(BackendUnavailableError):
        await proxied.append_event(session, event("lost", {"k": 1, "app:a": 1}))
    assert await _stored(raw, prefix, session) == (0, 0, 0)
    assert await raw.exists(f"{prefix}{{{APP}}}:app") == 0
    proxy.accepting = True
    await proxied.append_event(session, event("works", {"k": 2}))
    loaded = await proxied.get_session(app_name=APP, user_id="u", session_id="s")
    assert loaded is not None
    assert (loaded.revision, loaded.state) == (1, {"k": 2})


async def test_a_killed_connection_is_replaced(prefix: str, raw: redis_asyncio.Redis) -> None:
    name = f"adk-{prefix.replace(':', '-')}"
    async with RedisSessionService(f"{REDIS_URL}?client_name={name}", key_prefix=prefix) as service:
        session = await service.create_session(app_name=APP, user_id="u", session_id="s")
        mine = [c for c in await raw.client_list() if c["name"] == name]
        assert mine
        for connection in mine:
            await raw.client_kill_filter(_id=connection["id"])
        await service.append_event(session, event(delta={"k": 1}))
        loaded = await service.get_session(app_name=APP, user_id="u", session_id="s")
        assert loaded is not None
        assert loaded.revision == 1


async def test_an_unreachable_server_is_reported_without_the_password() -> None:
    url = "redis://admin:hunter2@127.0.0.1:1/0"
    async with RedisSessionService(url) as service:
        with pytest.raises(BackendUnavailableError) as info:
            await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert "hunter2" not in str(info.value)
    assert "redis://admin:***@127.0.0.1:1/0" in str(info.value)
    assert "hunter2" not in repr(info.value.__cause__)
