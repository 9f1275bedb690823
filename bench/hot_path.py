"""The hot path's CPU cost, for comparing two commits: ``python -m bench.hot_path``.

Prints one line: per backend (memory, a SQLite file, PostgreSQL, Redis), the best of seven
rounds of ``append_event`` and of a recent-20 ``get_session`` through the service's front
door, in µs per call. To compare commits, run it from each checkout in turn, several times,
interleaved (``cd <checkout> && PYTHONPATH=$PWD python -m bench.hot_path``), and compare the
medians: one process at a time keeps the two from competing for the machine.

PostgreSQL and Redis are the test servers (``ADK_RUNTIME_TEST_POSTGRES_URL``,
``ADK_RUNTIME_BENCH_REDIS_URL``); the run makes its own database and key prefix and removes
them afterwards.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
import uuid
from pathlib import Path

import redis.asyncio as redis_asyncio
from google.genai import types

from adk_runtime.events import Event
from adk_runtime.sessions import BaseSessionService, GetSessionConfig, InMemorySessionService
from adk_runtime.sessions.redis import RedisSessionService
from adk_runtime.sessions.sql import DatabaseSessionService
from bench.common import postgres_database

REDIS_URL = os.environ.get("ADK_RUNTIME_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
ROUNDS = 7


def _event(i: int) -> Event:
    content = types.Content(role="model", parts=[types.Part(text=f"hello {i}")])
    return Event(author="agent", invocation_id="inv", content=content)


async def _best_of(service: BaseSessionService, calls: int) -> tuple[float, float]:
    """The best µs per append and per recent-20 read over ``ROUNDS`` rounds of ``calls``."""
    session = await service.create_session(app_name="a", user_id="u")
    recent = GetSessionConfig(num_recent_events=20)
    append = read = float("inf")
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for i in range(calls):
            await service.append_event(session, _event(i))
        append = min(append, (time.perf_counter() - start) / calls)
        start = time.perf_counter()
        for _ in range(calls):
            await service.get_session(
                app_name="a", user_id="u", session_id=session.id, config=recent
            )
        read = min(read, (time.perf_counter() - start) / calls)
    return append * 1e6, read * 1e6


async def _redis(calls: int) -> tuple[float, float]:
    prefix = f"bench_hot_path_{uuid.uuid4().hex[:8]}:"
    try:
        async with RedisSessionService(REDIS_URL, key_prefix=prefix) as service:
            return await _best_of(service, calls)
    finally:
        client = redis_asyncio.Redis.from_url(REDIS_URL)
        keys = [key async for key in client.scan_iter(match=prefix + "*")]
        if keys:
            await client.delete(*keys)
        await client.aclose()


async def main() -> None:
    figures = {"memory": await _best_of(InMemorySessionService(), 1000)}
    with tempfile.TemporaryDirectory() as directory:
        sqlite = DatabaseSessionService(f"sqlite+aiosqlite:///{Path(directory) / 'hot.db'}")
        figures["sqlite"] = await _best_of(sqlite, 150)
        await sqlite.close()
    async with postgres_database("hot_path") as url:
        postgres = DatabaseSessionService(url, auto_migrate=True)
        figures["postgres"] = await _best_of(postgres, 150)
        await postgres.close()
    figures["redis"] = await _redis(300)
    print(" ".join(f"{name}: append {a:.1f} get-20 {g:.1f}" for name, (a, g) in figures.items()))


if __name__ == "__main__":
    asyncio.run(main())
