"""Connection pools sized for a server: knobs from the URL, no churn, waiting instead of failing.

Many more concurrent calls than the pool has connections: every call succeeds (callers wait
for a free connection), no more connections are ever opened than the pool's size (SQL: none
opened and closed per operation), a caller that waits past ``pool_timeout`` gets
``BackendUnavailableError``, and a malformed knob is a ``ConfigurationError`` naming it.
Against the real PostgreSQL and Redis.
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
import redis.asyncio as redis_asyncio
from sqlalchemy import event

from adk_runtime.errors import BackendUnavailableError, ConfigurationError
from adk_runtime.sessions import DatabaseSessionService, session_service_from_url
from adk_runtime.testing import text_event
from tests.stores import REDIS_URL, fresh_store

CALLS = 400


@pytest.mark.postgres
async def test_postgres_pool_from_the_url_waits_and_never_churns(tmp_path: Path) -> None:
    async with fresh_store("postgres", tmp_path) as store:
        url = f"{store.url}?pool_size=3&max_overflow=0&pool_timeout=30"
        async with session_service_from_url(url, **store.kwargs) as service:
            assert isinstance(service, DatabaseSessionService)
            sessions = [
                await service.create_session(app_name="a", user_id="u", session_id=f"s{i}")
                for i in range(CALLS // 4)
            ]
            engine = service._handle._db.engine
            opened: list[object] = []
            event.listen(engine.sync_engine, "connect", lambda *_: opened.append(1))

            async def turn(i: int) -> None:
                session = sessions[i % len(sessions)]
                fresh = await service.get_session(app_name="a", user_id="u", session_id=session.id)
                assert fresh is not None

            await asyncio.gather(*(turn(i) for i in range(CALLS)))
            await asyncio.gather(
                *(service.append_event(s, text_event(f"hi {s.id}")) for s in sessions)
            )
            assert engine.pool.size() == 3
            assert len(opened) <= 3  # at most the pool's connections, never one per call


@pytest.mark.postgres
async def test_postgres_caller_waiting_past_pool_timeout_is_unavailable(tmp_path: Path) -> None:
    async with fresh_store("postgres", tmp_path) as store:
        url = f"{store.url}?pool_size=1&pool_timeout=0.3"
        async with session_service_from_url(url, **store.kwargs) as service:
            assert isinstance(service, DatabaseSessionService)
            await service.create_session(app_name="a", user_id="u", session_id="s")
            engine = service._handle._db.engine
            async with engine.connect():  # the only connection, held
                with pytest.raises(BackendUnavailableError):
                    await service.get_session(app_name="a", user_id="u", session_id="s")
            got = await service.get_session(app_name="a", user_id="u", session_id="s")
            assert got is not None


@pytest.mark.redis
async def test_redis_pool_waits_instead_of_failing(tmp_path: Path) -> None:
    name = f"adkrt-pool-{uuid.uuid4().hex[:8]}"
    async with fresh_store("redis", tmp_path) as store:
        prefix = store.kwargs["key_prefix"]
        url = f"{store.url}?key_prefix={prefix}&max_connections=5&client_name={name}"
        async with session_service_from_url(url) as service:
            sessions = await asyncio.gather(
                *(
                    service.create_session(app_name="a", user_id="u", session_id=f"s{i}")
                    for i in range(CALLS)
                )
            )
            await asyncio.gather(
                *(service.append_event(s, text_event(f"hi {s.id}")) for s in sessions)
            )
            async with redis_asyncio.Redis.from_url(REDIS_URL) as probe:
                clients = await probe.client_list()
            ours = [c for c in clients if c.get("name") == name]
            assert 1 <= len(ours) <= 5
            for session in sessions[:: CALLS // 10]:
                got = await service.get_session(app_name="a", user_id="u", session_id=session.id)
                assert got is not None
                assert got.revision == 1


@pytest.mark.parametrize(
    ("backend", "query", "knob"),
    [
        ("postgres", "pool_size=0", "pool_size"),
        ("postgres", "pool_timeout=soon", "pool_timeout"),
        ("postgres", "max_overflow=-1", "max_overflow"),
        ("redis", "max_connections=0", "max_connections"),
        ("redis", "pool_timeout=-1", "pool_timeout"),
    ],
)
def test_a_malformed_pool_knob_is_named(backend: str, query: str, knob: str) -> None:
    base = {
        "postgres": "postgresql+asyncpg://nobody@127.0.0.1:1/none",
        "redis": "redis://127.0.0.1:1/0",
    }[backend]
    with pytest.raises(ConfigurationError, match=knob):
        session_service_from_url(f"{base}?{query}")
