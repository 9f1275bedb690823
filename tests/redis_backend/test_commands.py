"""Which commands the service sends: scripts by SHA, never KEYS or SCAN on a request path."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as redis_asyncio

from adk_runtime.errors import SerializationError
from adk_runtime.sessions import GetSessionConfig, RedisSessionService
from adk_runtime.sessions.redis._scripts import SOURCES, commands_called
from tests.backends import REDIS_URL
from tests.redis_backend.conftest import APP, event

pytestmark = pytest.mark.redis

_SCANNING = {"KEYS", "SCAN", "HSCAN", "SSCAN", "ZSCAN"}
SENT: list[str] = []


class RecordingConnection(redis_asyncio.Connection):
    """A connection that writes down the name of every command it sends."""

    def pack_command(self, *args: Any) -> list[bytes]:
        SENT.append(str(args[0]).upper())
        return super().pack_command(*args)


@pytest.fixture
async def recorded(prefix: str) -> AsyncIterator[RedisSessionService]:
    client = redis_asyncio.Redis.from_url(
        REDIS_URL, decode_responses=True, connection_class=RecordingConnection
    )
    SENT.clear()
    async with client, RedisSessionService(client=client, key_prefix=prefix) as service:
        yield service


async def _workload(service: RedisSessionService) -> None:
    for user in ["u1", "u2"]:
        for i in range(4):
            session = await service.create_session(
                app_name=APP, user_id=user, session_id=f"s{i}", state={"k": i, "user:x": i}
            )
            for j in range(3):
                await service.append_event(session, event(str(j), {"app:n": j}, timestamp=j))
    await service.get_session(app_name=APP, user_id="u1", session_id="s0")
    for config in [GetSessionConfig(num_recent_events=2), GetSessionConfig(after_timestamp=1)]:
        await service.get_session(app_name=APP, user_id="u1", session_id="s1", config=config)
    for user in ["u1", None]:
        token = None
        while True:
            page = await service.list_sessions(
                app_name=APP, user_id=user, page_size=3, page_token=token
            )
            token = page.next_page_token
            if token is None:
                break
    await service.delete_session(app_name=APP, user_id="u2", session_id="s0")


async def test_no_request_path_scans_the_keyspace(recorded: RedisSessionService) -> None:
    await _workload(recorded)
    assert "EVALSHA" in SENT
    assert not _SCANNING & set(SENT)
    for name, source in SOURCES.items():
        called = commands_called(source)
        assert called, name
        assert not _SCANNING & called, name
    # Writes go through scripts only; the listing's batch read is one MULTI/EXEC.
    writes = {"HSET", "RPUSH", "ZADD", "DEL", "ZREM", "EXPIRE", "PEXPIREAT", "UNLINK"}
    assert not writes & set(SENT)


async def test_scripts_are_reloaded_after_script_flush(
    recorded: RedisSessionService, raw: redis_asyncio.Redis
) -> None:
    session = await recorded.create_session(app_name=APP, user_id="u", session_id="s")
    await recorded.append_event(session, event("one", {"k": 1}))
    await raw.script_flush()
    SENT.clear()
    await recorded.append_event(session, event("two", {"k": 2}))
    assert SENT == ["EVALSHA", "SCRIPT LOAD", "EVALSHA"]  # NOSCRIPT → load → run again
    await raw.script_flush()
    loaded = await recorded.get_session(app_name=APP, user_id="u", session_id="s")
    assert loaded is not None
    assert (loaded.revision, loaded.state) == (2, {"k": 2})
    assert [e.content.parts[0].text for e in loaded.events if e.content and e.content.parts] == [
        "one",
        "two",
    ]


async def test_concurrent_appends_on_one_connection_pool_stay_consistent(
    recorded: RedisSessionService,
) -> None:
    # Many sessions appended concurrently through one client: each keeps its own order.
    sessions = [
        await recorded.create_session(app_name=APP, user_id="u", session_id=f"s{i}")
        for i in range(8)
    ]

    async def fill(index: int) -> None:
        for j in range(10):
            await recorded.append_event(
                sessions[index], event(f"{index}-{j}", {f"app:k{index}": j, "n": j})
            )

    await asyncio.gather(*(fill(i) for i in range(8)))
    listed = await recorded.list_sessions(app_name=APP, user_id="u")
    assert sorted(s.revision for s in listed.sessions) == [10] * 8
    state = listed.sessions[0].state
    assert {key: state[key] for key in state if key.startswith("app:")} == {
        f"app:k{i}": 9 for i in range(8)
    }


async def test_unstorable_values_send_nothing(recorded: RedisSessionService) -> None:
    session = await recorded.create_session(app_name=APP, user_id="u", session_id="s")
    SENT.clear()
    with pytest.raises(SerializationError, match=r"state\['user:bad'\]\[0\]"):
        await recorded.create_session(
            app_name=APP, user_id="u", session_id="t", state={"user:bad": [object()]}
        )
    with pytest.raises(SerializationError, match=r"state_delta\['app:bad'\]"):
        await recorded.append_event(session, event(delta={"ok": 1, "app:bad": {1, 2}}))
    with pytest.raises(SerializationError, match="timestamp"):
        await recorded.append_event(session, event(timestamp=float("inf")))
    assert SENT == []
