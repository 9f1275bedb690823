"""Core runtime: Runner events/s and append_event latency on the in-memory store.

The same workload runs on google-adk 2.13's Runner + InMemorySessionService when the ``bench``
extra is installed: a scripted agent yields 1,000 events with small state deltas in one
invocation. Append latency is measured on sessions holding 1k and 10k events, to show that
the cost of an append does not grow with history.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from typing import Any

from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext
from adk_runtime.events import Event, EventActions
from adk_runtime.runners import Runner
from adk_runtime.sessions import InMemorySessionService
from bench.common import Report, add_latency, google_adk_available, median_ms, scaled, time_each

EVENTS = 1_000
ROUNDS = 3
APP = "bench"


def _content(i: int) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=f"event {i} " + "x" * 64)])


class _Yielder(BaseAgent):
    count: int = EVENTS

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for i in range(self.count):
            yield Event(
                invocation_id=ctx.invocation_id,
                author=self.name,
                content=_content(i),
                actions=EventActions(state_delta={"counter": i, "user:last": i}),
            )


async def _ours_runner_rate() -> float:
    best = 0.0
    for _ in range(ROUNDS):
        service = InMemorySessionService()
        runner = Runner(app_name=APP, agent=_Yielder(name="bot"), session_service=service)
        session = await service.create_session(app_name=APP, user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="go")])
        start = time.perf_counter()
        n = 0
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            n += 1
        best = max(best, n / (time.perf_counter() - start))
    return best


async def _adk_runner_rate() -> float:
    from google.adk.agents import BaseAgent as AdkBaseAgent
    from google.adk.events import Event as AdkEvent
    from google.adk.events import EventActions as AdkEventActions
    from google.adk.runners import Runner as AdkRunner
    from google.adk.sessions import InMemorySessionService as AdkInMemory

    class AdkYielder(AdkBaseAgent):  # type: ignore[misc]
        async def _run_async_impl(self, ctx: Any) -> AsyncGenerator[Any, None]:
            for i in range(EVENTS):
                yield AdkEvent(
                    invocation_id=ctx.invocation_id,
                    author=self.name,
                    content=_content(i),
                    actions=AdkEventActions(state_delta={"counter": i, "user:last": i}),
                )

    best = 0.0
    for _ in range(ROUNDS):
        service = AdkInMemory()
        runner = AdkRunner(app_name=APP, agent=AdkYielder(name="bot"), session_service=service)
        session = await service.create_session(app_name=APP, user_id="u")
        message = types.Content(role="user", parts=[types.Part(text="go")])
        start = time.perf_counter()
        n = 0
        async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            n += 1
        best = max(best, n / (time.perf_counter() - start))
    return best


async def _append_latency(history: int) -> list[float]:
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id="u")
    for i in range(history):
        event = Event(author="bot", content=_content(i), actions=EventActions(state_delta={"i": i}))
        await service.append_event(session, event)

    async def append(i: int) -> None:
        event = Event(author="bot", content=_content(i), actions=EventActions(state_delta={"i": i}))
        await service.append_event(session, event)

    return await time_each(1_000, append)


async def _adk_append_latency(history: int) -> list[float]:
    from google.adk.events import Event as AdkEvent
    from google.adk.events import EventActions as AdkEventActions
    from google.adk.sessions import InMemorySessionService as AdkInMemory

    service = AdkInMemory()
    session = await service.create_session(app_name=APP, user_id="u")
    for i in range(history):
        event = AdkEvent(
            author="bot", content=_content(i), actions=AdkEventActions(state_delta={"i": i})
        )
        await service.append_event(session, event)

    async def append(i: int) -> None:
        event = AdkEvent(
            author="bot", content=_content(i), actions=AdkEventActions(state_delta={"i": i})
        )
        await service.append_event(session, event)

    return await time_each(1_000, append)


async def _reads(service: Any, event: Any, config_cls: Any) -> dict[str, list[float]]:
    """get_session of a 1,000-event session: the last 20 events, and all of them."""
    session = await service.create_session(app_name="bench", user_id="u", session_id="reads")
    for i in range(1_000):
        await service.append_event(session, event(i))

    async def get(config: Any) -> None:
        await service.get_session(app_name="bench", user_id="u", session_id="reads", config=config)

    recent = config_cls(num_recent_events=20)
    return {
        "get_session recent-20 @1k": await time_each(scaled(300), lambda _: get(recent)),
        "get_session full @1k": await time_each(scaled(100, 20), lambda _: get(None)),
    }


async def _read_figures(report: Report) -> None:
    from adk_runtime.sessions import GetSessionConfig

    def ours(i: int) -> Event:
        delta = {"turn": i}
        return Event(author="agent", content=_content(i), actions=EventActions(state_delta=delta))

    for metric, samples in (await _reads(InMemorySessionService(), ours, GetSessionConfig)).items():
        report.add("core", "memory", f"{metric} p50", median_ms(samples), "ms")
    if not google_adk_available():
        return
    from google.adk.events import Event as AdkEvent
    from google.adk.events import EventActions as AdkActions
    from google.adk.sessions import InMemorySessionService as AdkService
    from google.adk.sessions.base_session_service import GetSessionConfig as AdkConfig

    def theirs(i: int) -> Any:
        actions = AdkActions(state_delta={"turn": i})
        return AdkEvent(author="agent", content=_content(i), actions=actions)

    for metric, samples in (await _reads(AdkService(), theirs, AdkConfig)).items():
        report.add("core", "memory", f"{metric} p50", median_ms(samples), "ms", impl="google-adk")
        report.ratio(
            "core", "memory", f"{metric} p50", "adk_runtime", "google-adk", higher_is_better=False
        )


async def run(report: Report) -> None:
    await _read_figures(report)
    report.add("core", "memory", "Runner events/s", await _ours_runner_rate(), "events/s")
    for history in (1_000, 10_000):
        samples = await _append_latency(history)
        add_latency(report, "core", "memory", f"append @{history // 1000}k", samples, "adk_runtime")
    if not google_adk_available():
        print("  google-adk is not installed (make bench installs the bench extra); skipped")
        return
    report.add(
        "core", "memory", "Runner events/s", await _adk_runner_rate(), "events/s", impl="google-adk"
    )
    report.ratio(
        "core", "memory", "Runner events/s", "adk_runtime", "google-adk", higher_is_better=True
    )
    for history in (1_000, 10_000):
        samples = await _adk_append_latency(history)
        add_latency(report, "core", "memory", f"append @{history // 1000}k", samples, "google-adk")
        report.ratio(
            "core",
            "memory",
            f"append @{history // 1000}k p50",
            "adk_runtime",
            "google-adk",
            higher_is_better=False,
        )
