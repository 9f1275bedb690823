"""The creation state on Redis: the meta hash's ``init`` field, read only by fork/rewind/export."""

from __future__ import annotations

import redis.asyncio as redis_asyncio

from adk_runtime.sessions import RedisSessionService
from adk_runtime.sessions.redis._scripts import SOURCES
from tests.redis_backend.conftest import APP, event


async def test_a_session_without_the_init_field_keeps_the_older_rule(
    service: RedisSessionService, raw: redis_asyncio.Redis, prefix: str
) -> None:
    meta = f"{prefix}{{{APP}}}:session:u:"
    for session_id in ("old", "new"):
        session = await service.create_session(
            app_name=APP, user_id="u", session_id=session_id, state={"c": 1, "app:a": {"b": 1}}
        )
        await service.append_event(session, event(delta={"x": 1}))
        await service.append_event(session, event(delta={"c": 2}))
        assert await raw.hget(meta + session_id, "init") == '{"c":1}'
    await raw.hdel(meta + "old", "init")  # as a session created before the field was kept
    for session_id, expected in (("old", {"x": 1}), ("new", {"c": 1, "x": 1})):
        source = await service.get_session(app_name=APP, user_id="u", session_id=session_id)
        assert source is not None
        fork = await service.fork_session(
            app_name=APP,
            user_id="u",
            session_id=session_id,
            new_session_id=f"{session_id}-fork",
            at_event_id=source.events[0].id,
        )
        assert {k: v for k, v in fork.state.items() if ":" not in k} == expected
    assert await raw.hget(meta + "old-fork", "init") is None  # unknown stays unknown
    assert await raw.hget(meta + "new-fork", "init") == '{"c":1}'


def test_the_read_scripts_never_read_the_init_field() -> None:
    for script in ("get", "list", "append"):
        assert "'init'" not in SOURCES[script]
    assert "'init'" in SOURCES["create"]
    assert "'init'" in SOURCES["fork"]
