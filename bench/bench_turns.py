"""Runner turn latency as history grows: 100, 1,000 and 10,000 events, warm, every durable store.

One turn is what a chat backend does per message: ``Runner.run_async`` loads the session
(``get_session`` of the whole conversation), commits the user's message, runs the agent (a
ScriptedAgent that answers with one event) and commits its answer. Per store, one session per
history length is seeded (``append_event``), then turns go round-robin over the sessions
(after a few warm-up rounds), so each length is timed under the same conditions; p50 is
reported with the session cache on (``cache_bytes``, what ``adk-runtime serve`` uses) and off.
Target (issue 13): the turn at 10k within 1.3x of the turn at 100, warm, with the cache.
"""

from __future__ import annotations

import statistics
import time
import uuid
from pathlib import Path

from google.genai import types

from adk_runtime.events import Event, EventActions
from adk_runtime.runners import Runner
from adk_runtime.sessions import session_service_from_url
from adk_runtime.sessions._cache import DEFAULT_SERVER_CACHE_BYTES
from adk_runtime.testing import ScriptedAgent, text_event
from bench.common import Report, quick
from tests.stores import durable_backends, fresh_store

SUITE = "turns"
HISTORIES = (100, 1_000, 10_000)
APP = "turns"


def _turns() -> int:
    return 15 if quick() else 40


def _history_event(i: int) -> Event:
    role = "user" if i % 2 == 0 else "model"
    content = types.Content(role=role, parts=[types.Part(text=f"message {i} " + "x" * 200)])
    return Event(
        author="user" if role == "user" else "bot",
        content=content,
        actions=EventActions(state_delta={"turn": i}),
    )


def _agent() -> ScriptedAgent:
    return ScriptedAgent(name="bot", script=[text_event("the answer " + "y" * 120)])


async def _turn(runner: Runner, session_id: str) -> float:
    message = types.Content(role="user", parts=[types.Part(text="and then?")])
    start = time.perf_counter()
    async for _ in runner.run_async(user_id="u", session_id=session_id, new_message=message):
        pass
    return (time.perf_counter() - start) * 1000


async def _store(report: Report, backend: str, tmp: Path) -> None:
    async with fresh_store(backend, tmp) as store:
        # One session per history length, all in the same store, seeded first; then the turns
        # go round-robin over them, so every length is timed under the same conditions (store
        # size, WAL state, machine noise) and only the history differs.
        sessions = {history: f"h{history}-{uuid.uuid4().hex[:6]}" for history in HISTORIES}
        async with session_service_from_url(store.url, **store.kwargs) as service:
            for history, session_id in sessions.items():
                session = await service.create_session(
                    app_name=APP, user_id="u", session_id=session_id
                )
                while session.revision < history:
                    await service.append_event(session, _history_event(session.revision))
        for label, extra in (
            ("adk_runtime", {"cache_bytes": DEFAULT_SERVER_CACHE_BYTES}),
            ("adk_runtime (no cache)", {}),
        ):
            async with session_service_from_url(store.url, **store.kwargs, **extra) as service:
                runner = Runner(app_name=APP, agent=_agent(), session_service=service)
                samples: dict[int, list[float]] = {history: [] for history in HISTORIES}
                for round_ in range(3 + _turns()):
                    for history, session_id in sessions.items():
                        took = await _turn(runner, session_id)
                        if round_ >= 3:  # the first rounds warm the process and the cache
                            samples[history].append(took)
                medians = {history: statistics.median(s) for history, s in samples.items()}
                for history, median in medians.items():
                    report.add(SUITE, backend, f"turn @{history} p50", median, "ms", impl=label)
                growth = medians[HISTORIES[-1]] / medians[HISTORIES[0]]
                report.add(SUITE, backend, "turn @10k / turn @100", growth, "x", impl=label)


async def run(report: Report) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        for backend in durable_backends():
            await _store(report, backend, Path(folder))
