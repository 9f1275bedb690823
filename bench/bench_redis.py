"""Redis sessions: append, windowed reads and listing, against a raw floor and google-adk.

Figures (Redis on ``ADK_RUNTIME_BENCH_REDIS_URL``, default ``redis://127.0.0.1:6379/0``):

- ``append @1k``: 1,000 appends to a fresh session (p50, p99, events/s);
  ``append @10k``: 1,000 appends to a session that already holds 10,000 events.
- ``get(20) @1k`` / ``@10k``: ``get_session(num_recent_events=20)`` on those sessions.
- ``list 50 of 10k``: the first page of 50 among 10,000 sessions of one user.
- ``floor``: the same keys written by a hand-written minimal Lua compare-and-set script, with
  the event JSON prepared outside the timed call: the cost of Redis itself. Its appends are
  interleaved one by one with ours, so both see the same load on a shared machine.
- ``google-adk``: google-adk 2.13's ``RedisSessionService`` (when importable). It stores a
  session as one JSON blob, so its 10k-event session is seeded in its own stored form (one
  ``SET`` of its own ``Session.model_dump_json()``; appending 10,000 events one by one would
  take minutes); its calls cost O(history), so it is sampled less (1,000 appends and 50 reads
  at 1k, 20 appends and 10 reads at 10k, 2 listings). It has no pagination: its "first page"
  lists all 10,000 sessions (SCAN + one GET per session).

Every run writes under a fresh key prefix and deletes it afterwards.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

import redis.asyncio as redis_asyncio
from google.genai import types

from adk_runtime.events import Event, EventActions, event_to_json
from adk_runtime.sessions import GetSessionConfig, RedisSessionService
from bench.common import Report, add_latency, time_each

URL = os.environ.get("ADK_RUNTIME_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
APPENDS = 1_000
HISTORY = 10_000
SESSIONS = 10_000
READS = 200
APP = "bench"
SUITE = "sessions"
BACKEND = "redis"

_FLOOR = """
local rev = redis.call('HGET', KEYS[1], 'rev')
if rev ~= ARGV[1] then return -1 end
local new = rev + 1
redis.call('RPUSH', KEYS[3], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[3], new)
redis.call('ZADD', KEYS[5], ARGV[4], new)
redis.call('HSET', KEYS[2], 'counter', ARGV[5])
redis.call('HSET', KEYS[7], 'last', ARGV[5])
redis.call('HSET', KEYS[1], 'rev', new, 'mtime', ARGV[6])
redis.call('ZADD', KEYS[8], ARGV[6], ARGV[7])
redis.call('ZADD', KEYS[9], ARGV[6], ARGV[8])
return new
"""


def _content(i: int) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=f"event {i} " + "x" * 64)])


def _event(i: int) -> Event:
    delta = {"counter": i, "user:last": i}
    return Event(author="bot", content=_content(i), actions=EventActions(state_delta=delta))


def _latency(report: Report, metric: str, samples: list[float], impl: str) -> None:
    add_latency(report, SUITE, BACKEND, metric, samples, impl)


class _Floor:
    """The raw floor for one session: the same keys, one minimal compare-and-set script."""

    def __init__(self, client: redis_asyncio.Redis, prefix: str, label: str) -> None:
        self._script = client.register_script(_FLOOR)
        base = f"{prefix}floor:{{{APP}}}"
        self.keys = [f"{base}:{kind}:u:{label}" for kind in ["session", "state", "events"]]
        self.keys += [f"{base}:{kind}:u:{label}" for kind in ["eventids", "eventtimes"]]
        self.keys += [f"{base}:app", f"{base}:user:u", f"{base}:sessions:u", f"{base}:sessions"]
        self.label = label
        self.revision = 0

    async def append(self, payload: tuple[str, str, str], i: int) -> None:
        event_id, text, timestamp = payload
        args = [self.revision, text, event_id, timestamp, str(i), repr(time.time())]
        self.revision = await self._script(
            keys=self.keys, args=[*args, self.label, f"u:{self.label}"]
        )


def _payloads(start: int, count: int) -> list[tuple[str, str, str]]:
    events = [_event(i) for i in range(start, start + count)]
    return [(e.id, event_to_json(e), repr(e.timestamp)) for e in events]


async def _appends(report: Report, prefix: str, service: RedisSessionService) -> None:
    """Append latency, ours and the floor interleaved op by op (the machine is noisy)."""
    async with redis_asyncio.Redis.from_url(URL, decode_responses=True) as client:
        for label, history in (("1k", 0), ("10k", HISTORY)):
            session = await service.create_session(app_name=APP, user_id="u", session_id=label)
            floor = _Floor(client, prefix, label)
            await client.hset(floor.keys[0], mapping={"rev": 0, "mtime": time.time()})
            for i in range(history):
                await service.append_event(session, _event(i))
            for i, payload in enumerate(_payloads(0, history)):
                await floor.append(payload, i)
            events = [_event(history + i) for i in range(APPENDS)]
            payloads = _payloads(history, APPENDS)
            ours: list[float] = []
            raw: list[float] = []
            for i in range(APPENDS):
                start = time.perf_counter()
                await service.append_event(session, events[i])
                middle = time.perf_counter()
                await floor.append(payloads[i], history + i)
                ours.append((middle - start) * 1000)
                raw.append((time.perf_counter() - middle) * 1000)
            assert session.revision == floor.revision == history + APPENDS
            _latency(report, f"append @{label}", ours, "adk_runtime")
            _latency(report, f"append @{label}", raw, "floor")


async def _ours(report: Report, prefix: str) -> None:
    async with RedisSessionService(URL, key_prefix=prefix + "ours:") as service:
        await _appends(report, prefix, service)
        config = GetSessionConfig(num_recent_events=20)
        for label in ("1k", "10k"):

            async def read(_: int, label: str = label) -> None:
                await service.get_session(
                    app_name=APP, user_id="u", session_id=label, config=config
                )

            _latency(report, f"get(20) @{label}", await time_each(READS, read), "adk_runtime")
        for i in range(SESSIONS):
            await service.create_session(app_name=APP, user_id="lister", session_id=f"s{i}")

        async def first_page(_: int) -> None:
            page = await service.list_sessions(app_name=APP, user_id="lister", page_size=50)
            assert len(page.sessions) == 50

        samples = await time_each(READS, first_page)
        _latency(report, "list 50 of 10k", samples, "adk_runtime")


async def _adk(report: Report, prefix: str) -> None:
    try:
        from google.adk.events import Event as AdkEvent
        from google.adk.events import EventActions as AdkEventActions
        from google.adk.integrations.redis import RedisSessionService as AdkRedis
        from google.adk.integrations.redis import RedisSessionServiceConfig
        from google.adk.sessions import Session as AdkSession
        from google.adk.sessions.base_session_service import GetSessionConfig as AdkConfig
    except ImportError as exc:
        print(f"  google-adk's Redis session service cannot be imported ({exc}); skipped")
        return

    def adk_event(i: int) -> Any:
        delta = {"counter": i, "user:last": i}
        actions = AdkEventActions(state_delta=delta)
        return AdkEvent(author="bot", content=_content(i), actions=actions)

    config = RedisSessionServiceConfig(uri=URL, key_prefix=prefix + "adk:", ttl_seconds=0)
    service = AdkRedis(config=config)
    client = service._get_redis()
    try:
        # google-adk's calls cost O(history): fewer samples (the percentiles say how many).
        for label, history, appends, reads in (("1k", 0, APPENDS, 50), ("10k", HISTORY, 20, 10)):
            session = await service.create_session(app_name=APP, user_id="u", session_id=label)
            if history:
                seeded = AdkSession(
                    id=label,
                    app_name=APP,
                    user_id="u",
                    events=[adk_event(i) for i in range(history)],
                    last_update_time=time.time(),
                )
                await client.set(service._session_key(APP, "u", label), seeded.model_dump_json())
                session = await service.get_session(app_name=APP, user_id="u", session_id=label)

            async def append(i: int, session: Any = session) -> None:
                await service.append_event(session, adk_event(i))

            _latency(report, f"append @{label}", await time_each(appends, append), "google-adk")

            async def read(_: int, label: str = label) -> None:
                await service.get_session(
                    app_name=APP,
                    user_id="u",
                    session_id=label,
                    config=AdkConfig(num_recent_events=20),
                )

            _latency(report, f"get(20) @{label}", await time_each(reads, read), "google-adk")
        for i in range(SESSIONS):
            await service.create_session(app_name=APP, user_id="lister", session_id=f"s{i}")

        async def list_all(_: int) -> None:
            listed = await service.list_sessions(app_name=APP, user_id="lister")
            assert len(listed.sessions) == SESSIONS

        samples = await time_each(2, list_all)
        _latency(report, "list 50 of 10k", samples, "google-adk")
    finally:
        await client.aclose()


async def _cleanup(prefix: str) -> None:
    async with redis_asyncio.Redis.from_url(URL) as client:
        batch = []
        async for key in client.scan_iter(match=f"{prefix}*", count=1000):
            batch.append(key)
            if len(batch) >= 1000:
                await client.unlink(*batch)
                batch = []
        if batch:
            await client.unlink(*batch)


def _ratios(report: Report) -> None:
    for metric in ["append @1k p50", "append @10k p50"]:
        ours = report.value(SUITE, BACKEND, metric, "adk_runtime")
        floor = report.value(SUITE, BACKEND, metric, "floor")
        if ours and floor:
            report.add(SUITE, BACKEND, f"{metric} / floor", ours / floor, "x", impl="ratio")
    for metric in [
        "append @1k p50",
        "append @10k p50",
        "get(20) @1k p50",
        "get(20) @10k p50",
        "list 50 of 10k p50",
    ]:
        report.ratio(SUITE, BACKEND, metric, "adk_runtime", "google-adk", higher_is_better=False)
    flat = report.value(SUITE, BACKEND, "append @10k p50", "adk_runtime")
    fresh = report.value(SUITE, BACKEND, "append @1k p50", "adk_runtime")
    if flat and fresh:
        report.add(SUITE, BACKEND, "append p50 @10k / @1k", flat / fresh, "x", impl="adk_runtime")


async def run(report: Report) -> None:
    prefix = f"adkbench:{uuid.uuid4().hex}:"
    try:
        await _ours(report, prefix)
        await _adk(report, prefix)
        _ratios(report)
    finally:
        await _cleanup(prefix)
