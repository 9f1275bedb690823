"""Runner events/s on every durable backend (SQLite file, PostgreSQL, Redis), vs google-adk.

One invocation of a ScriptedAgent yields 1,000 events (200 with ``--quick``) with small state
deltas on all three scopes; every event is committed before the agent resumes. The same
workload runs on google-adk 2.13's Runner with its DatabaseSessionService (SQLite,
PostgreSQL) and RedisSessionService when the ``bench`` extra is installed. Each store is
fresh and removed afterwards.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import AsyncGenerator, AsyncIterator
from pathlib import Path
from typing import Any

from google.genai import types

from adk_runtime.runners import Runner
from adk_runtime.testing import ScriptedAgent, text_event
from bench.common import Report, google_adk_available, scaled
from tests.stores import Store, durable_backends, fresh_store

APP = "bench"
ROUNDS = 2


def _events() -> int:
    return scaled(1_000, minimum=200)


def _message() -> types.Content:
    return types.Content(role="user", parts=[types.Part(text="go")])


def _agent() -> ScriptedAgent:
    step = text_event("event " + "x" * 64)
    counter = iter(range(10**9))

    def next_event(_ctx: Any) -> Any:
        i = next(counter)
        event = step.model_copy(deep=True)
        event.actions.state_delta = {"counter": i, "user:last": i, "app:last": i}
        return event

    return ScriptedAgent(name="bot", script=[next_event], repeat=_events())


async def _ours(store: Store) -> float:
    best = 0.0
    async with store.open() as service:
        for _ in range(ROUNDS):
            runner = Runner(app_name=APP, agent=_agent(), session_service=service)
            session = await service.create_session(app_name=APP, user_id="u")
            stream = runner.run_async(user_id="u", session_id=session.id, new_message=_message())
            best = max(best, await _timed(stream))
    return best


async def _timed(stream: AsyncGenerator[Any, None]) -> float:
    start = time.perf_counter()
    n = 0
    async for _ in stream:
        n += 1
    return n / (time.perf_counter() - start)


@contextlib.asynccontextmanager
async def _adk_service(backend: str, store: Store) -> AsyncIterator[Any]:
    if backend == "redis":
        from google.adk.integrations.redis import RedisSessionService
        from google.adk.integrations.redis._config import RedisSessionServiceConfig

        prefix = store.kwargs["key_prefix"] + "adk:"
        yield RedisSessionService(RedisSessionServiceConfig(uri=store.url, key_prefix=prefix))
        return
    from google.adk.sessions import DatabaseSessionService

    service = DatabaseSessionService(db_url=store.url)
    try:
        yield service
    finally:
        close = getattr(service, "close", None)
        if close is not None:
            await close()


async def _adk(backend: str, store: Store) -> float:
    from google.adk.agents import BaseAgent as AdkBaseAgent
    from google.adk.events import Event as AdkEvent
    from google.adk.events import EventActions as AdkEventActions
    from google.adk.runners import Runner as AdkRunner

    count = _events()

    class AdkYielder(AdkBaseAgent):  # type: ignore[misc]
        async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Any, None]:
            for i in range(count):
                yield AdkEvent(
                    invocation_id=ctx.invocation_id,
                    author=self.name,
                    content=types.Content(
                        role="model", parts=[types.Part(text="event " + "x" * 64)]
                    ),
                    actions=AdkEventActions(
                        state_delta={"counter": i, "user:last": i, "app:last": i}
                    ),
                )

    best = 0.0
    async with _adk_service(backend, store) as service:
        for _ in range(ROUNDS):
            runner = AdkRunner(app_name=APP, agent=AdkYielder(name="bot"), session_service=service)
            session = await service.create_session(app_name=APP, user_id="u")
            best = max(
                best,
                await _timed(
                    runner.run_async(user_id="u", session_id=session.id, new_message=_message())
                ),
            )
    return best


async def run(report: Report) -> None:
    backends = durable_backends()
    if not backends:
        print("  no durable backend is registered on this branch; skipped")
        return
    with tempfile.TemporaryDirectory(prefix="adkrt-bench-") as tmp:
        for backend in backends:
            async with fresh_store(backend, Path(tmp)) as store:
                rate = await _ours(store)
            report.add("runner", backend, "Runner events/s", rate, "events/s")
            if not google_adk_available():
                continue
            async with fresh_store(backend, Path(tmp)) as store:
                try:
                    rate = await _adk(backend, store)
                except Exception as exc:  # google-adk's failure is a finding, not a crash
                    print(f"  google-adk on {backend} failed: {type(exc).__name__}: {exc}")
                    continue
            report.add("runner", backend, "Runner events/s", rate, "events/s", impl="google-adk")
            report.ratio(
                "runner",
                backend,
                "Runner events/s",
                "adk_runtime",
                "google-adk",
                higher_is_better=True,
            )
