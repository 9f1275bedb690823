"""Many conversations appending at once: aggregate events/s, p50 and p99 as C grows.

For C = 1, 16, 64 and 256 conversations on one service (memory, a SQLite file, PostgreSQL,
Redis, and Cloud Spanner's emulator), each conversation appends its share of ``TOTAL`` events
one after another while the others do the same. Same run, same C:

- ``raw_driver``: the floor. PostgreSQL: an asyncpg pool with as many connections as our
  pool (no reset query on release), running our one-statement append; Redis: redis-py with
  the same pool size running our own ``append.lua``, one ``EVALSHA`` per append; SQLite:
  one aiosqlite connection, one ``BEGIN IMMEDIATE`` transaction per event, the writers taking turns.
- ``google-adk``: google-adk 2.13's services on the same store (when installed).

Each backend is measured in a process of its own (a server runs one store; a process that
has just driven another store's drivers and google-adk carries their heap and caches, which
showed as 20% more client CPU per append at one level and not another). Within it, ours and the
floor run ``ROUNDS`` rounds of every level in turn (1, 16, 64, 256, 1, 16, ...), so a slow
minute of a shared machine falls on every level alike; a level's events/s is the median of its
rounds, p50 and p99 are over all its rounds' appends. google-adk runs one round (it is slow).
After each run every conversation is read back and must hold exactly its events, in order.
For ours, the floors and google-adk the bench also prints this process's CPU time per append
(``client cpu/append``): on a machine shared with the database, client CPU is what caps throughput.
Targets (issue 13): events/s never falls as C rises; PostgreSQL at C=16 ≥ 0.6x the floor and
≥ 4x google-adk; p99 at C=64 ≤ 10x p50.

Spanner runs on the emulator the bench starts (as the tests do): one process that runs one
read-write transaction at a time and aborts the others, which the service retries (C = 1, 16
and 64 only: see :data:`SPANNER_LEVELS`). Its events/s are the emulator's, not Spanner's
(every Spanner row says so); what carries over is ``round trips/append`` (RPCs per append,
retries of aborted transactions included: 2 when nothing aborts) and ``read back exact``
(the events every conversation holds afterwards, each exactly once and in order, or the run
fails).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import redis.asyncio as redis_asyncio
from google.genai import types
from sqlalchemy.engine import make_url

from adk_runtime.events import Event, EventActions, event_to_json
from adk_runtime.sessions import session_service_from_url
from adk_runtime.sessions._prepare import PreparedAppend
from adk_runtime.sessions.redis import RedisSessionService
from adk_runtime.sessions.redis import _protocol as _redis_protocol
from adk_runtime.sessions.redis._scripts import SOURCES as _REDIS_SOURCES
from adk_runtime.sessions.sql._append import _PG_APPEND
from adk_runtime.sessions.sql._ttl import NEVER as _NEVER
from adk_runtime.sql.pool import POOL_DEFAULTS
from bench.common import (
    EMULATOR_NOTE,
    Report,
    Row,
    google_adk_available,
    percentile,
    postgres_database,
    quick,
    spanner_database,
)

SUITE = "concurrency"
LEVELS = (1, 16, 64, 256)
SPANNER_LEVELS = (1, 16, 64)
"""The emulator runs one read-write transaction at a time: at C=256 some appends see their
transaction aborted for longer than the service retries (30 s) and fail with
BackendUnavailableError, the emulator's limit and not Spanner's."""
REDIS_URL = os.environ.get("ADK_RUNTIME_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
REDIS_POOL = 50

# One conversation's append, timed: (conversation index, event index) -> None.
Append = Callable[[int, int], Awaitable[None]]


def _total() -> int:
    return 512 if quick() else 4096


def _rounds() -> int:
    return 1 if quick() else 3


def _content(i: int) -> types.Content:
    return types.Content(role="model", parts=[types.Part(text=f"event {i} " + "x" * 120)])


def _event(i: int, event_cls: Any = Event, actions_cls: Any = EventActions) -> Any:
    delta = {"turn": i, "user:last": i}
    return event_cls(author="agent", content=_content(i), actions=actions_cls(state_delta=delta))


async def _drive(conversations: int, per: int, append: Append) -> tuple[float, list[float]]:
    """Run every conversation at once; return (wall seconds, per-append ms)."""
    samples: list[float] = []

    async def conversation(c: int) -> None:
        for i in range(per):
            start = time.perf_counter()
            await append(c, i)
            samples.append((time.perf_counter() - start) * 1000)

    start = time.perf_counter()
    await asyncio.gather(*(conversation(c) for c in range(conversations)))
    return time.perf_counter() - start, samples


@dataclasses.dataclass
class _Level:
    """Every round's measurement of one level: events/s, client CPU per append, latencies."""

    rates: list[float] = dataclasses.field(default_factory=list)
    cpu: list[float] = dataclasses.field(default_factory=list)
    samples: list[float] = dataclasses.field(default_factory=list)


class _Levels:
    """Collects rounds per level, then reports each level's median (rows in LEVELS order)."""

    def __init__(self, backend: str, impl: str, note: str = "") -> None:
        self.backend, self.impl, self.note = backend, impl, note
        self.levels: dict[int, _Level] = {}

    def add(self, c: int, wall: float, samples: list[float], cpu: float | None = None) -> None:
        level = self.levels.setdefault(c, _Level())
        level.rates.append(len(samples) / wall)
        level.samples.extend(samples)
        if cpu is not None:
            # This process's CPU per append (the client side: encoding, driver, event loop).
            level.cpu.append(cpu / len(samples) * 1e6)

    def report(self, report: Report) -> None:
        backend, impl = self.backend, self.impl
        for c in sorted(self.levels):
            level = self.levels[c]
            rate = statistics.median(level.rates)
            spread = f"{len(level.rates)} rounds: " + " / ".join(f"{r:,.0f}" for r in level.rates)
            note = "; ".join(
                text for text in (spread if len(level.rates) > 1 else "", self.note) if text
            )
            report.add(SUITE, backend, f"C={c} events/s", rate, "ev/s", impl=impl, note=note)
            report.add(SUITE, backend, f"C={c} p50", percentile(level.samples, 50), "ms", impl=impl)
            report.add(SUITE, backend, f"C={c} p99", percentile(level.samples, 99), "ms", impl=impl)
            if level.cpu:
                cpu = statistics.median(level.cpu)
                report.add(SUITE, backend, f"C={c} client cpu/append", cpu, "us", impl=impl)


def _plan(rounds: int, levels: tuple[int, ...] | None = None) -> list[int]:
    """The levels (default :data:`LEVELS`) in the order they run: each once per round."""
    return [c for _ in range(rounds) for c in levels or LEVELS]


# --- ours and google-adk: any session service ------------------------------------------


async def _services(
    report: Report,
    backend: str,
    impl: str,
    service: Any,
    classes: tuple[Any, Any],
    total: int | None = None,
    rounds: int = 1,
) -> None:
    note = EMULATOR_NOTE if backend == "spanner" else ""
    levels = _Levels(backend, impl, note)
    for c in _plan(rounds, SPANNER_LEVELS if note else LEVELS):
        per = max(2, (total or _total()) // c)
        app = f"conc-{uuid.uuid4().hex[:8]}"
        sessions = [
            await service.create_session(app_name=app, user_id=f"u{k % 8}", session_id=f"s{k}")
            for k in range(c)
        ]
        events = [[_event(k * per + i, *classes) for i in range(per)] for k in range(c)]

        async def append(k: int, i: int, sessions: Any = sessions, events: Any = events) -> None:
            await service.append_event(sessions[k], events[k][i])

        try:
            # Warm up: C reads at once open the connections C writers will use (a server's
            # pool is warm; opening them is not what this measures).
            await asyncio.gather(
                *(
                    service.get_session(app_name=app, user_id=s.user_id, session_id=s.id)
                    for s in sessions
                )
            )
            cpu, trips = time.process_time(), getattr(service, "round_trips", None)
            wall, samples = await _drive(c, per, append)
            cpu = time.process_time() - cpu
        except Exception as exc:  # google-adk may fail under load: report, go on
            print(f"  {impl} failed at C={c}: {type(exc).__name__}: {str(exc)[:120]}")
            report.add(SUITE, backend, f"C={c} errors", 1, "run", impl=impl)
            continue
        levels.add(c, wall, samples, cpu)
        await _check(service, app, sessions, events)
        if note:  # Spanner: what the emulator can tell about Spanner
            rpcs = (service.round_trips - trips) / len(samples)
            report.add(
                SUITE, backend, f"C={c} round trips/append", rpcs, "rt", impl=impl, note=note
            )
            report.add(SUITE, backend, f"C={c} read back exact", len(samples), "events", impl=impl)
    levels.report(report)


async def _check(service: Any, app: str, sessions: list[Any], events: list[list[Any]]) -> None:
    for session, expected in zip(sessions, events, strict=True):
        stored = await service.get_session(
            app_name=app, user_id=session.user_id, session_id=session.id
        )
        ids = [event.id for event in stored.events]
        if ids != [event.id for event in expected]:
            raise AssertionError(f"conversation {session.id} lost or reordered events")


# --- the raw-driver floors ---------------------------------------------------------------


async def _no_reset(_connection: Any) -> None:
    return None


def pg_floor_append_args(app: str, sid: str, revision: int, payload: str) -> list[Any]:
    """Our one-statement PostgreSQL append's arguments, as the floor sends them: event
    ``e<revision>`` (JSON ``payload``) to session ``sid`` of user ``u``, expected at
    ``revision``, any incarnation, no fencing token, no TTL."""
    params = {
        "app": app,
        "user": "u",
        "sid": sid,
        "now": datetime.now(timezone.utc),
        "expected": revision,
        "eid": f"e{revision}",
        "inv": "inv",
        "ts": 1.0,
        "payload": payload,
        "sdelta": json.dumps({"turn": revision}),
        "adelta": None,
        "udelta": json.dumps({"last": revision}),
        "ctime": None,
        "fence": None,
        "release": False,
        "fresh": _NEVER,
    }
    return _PG_APPEND.args(params)


async def _floor_postgres(report: Report, url: str) -> None:
    dsn = make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    size = POOL_DEFAULTS["pool_size"]
    levels = _Levels("postgres", "raw_driver")
    # No reset query on release: asyncpg's default sends one (a round trip per append) that a
    # pool running only stateless statements does not need; ours does not send one either.
    pool_options: dict[str, Any] = {"min_size": size, "max_size": size, "reset": _no_reset}
    async with asyncpg.create_pool(dsn, **pool_options) as pool:  # warm
        for c in _plan(_rounds()):
            per = max(2, _total() // c)
            app = f"floor-{uuid.uuid4().hex[:8]}"
            now = datetime.now(timezone.utc)
            await pool.executemany(
                "INSERT INTO adk_sessions (app_name, user_id, id, state, revision, create_time, "
                "update_time) VALUES ($1, 'u', $2, '{}', 0, $3, $3)",
                [(app, f"s{k}", now) for k in range(c)],
            )
            payloads = [event_to_json(_event(i)) for i in range(per)]

            async def append(k: int, i: int, app: str = app, payloads: Any = payloads) -> None:
                async with pool.acquire() as connection:
                    args = pg_floor_append_args(app, f"s{k}", i, payloads[i])
                    row = await connection.fetchrow(_PG_APPEND.sql, *args)
                assert row is not None

            cpu = time.process_time()
            wall, samples = await _drive(c, per, append)
            levels.add(c, wall, samples, time.process_time() - cpu)
    levels.report(report)


async def _floor_redis(report: Report) -> None:
    """raw redis-py running our own ``append.lua`` (the script as the service runs it).

    The sessions are created by our service (so their keys hold what the script expects);
    the floor then sends each append as one ``EVALSHA`` with its arguments built beforehand,
    on a blocking pool of ``REDIS_POOL`` connections: no preparation, no batching, no
    typing of the reply beyond checking it says ``ok``.
    """
    prefix = f"adkbenchfloor{uuid.uuid4().hex[:8]}:"
    pool = redis_asyncio.BlockingConnectionPool.from_url(REDIS_URL, max_connections=REDIS_POOL)
    client = redis_asyncio.Redis.from_pool(pool)
    script = client.register_script(_REDIS_SOURCES["append"])
    levels = _Levels("redis", "raw_driver")
    try:
        async with session_service_from_url(f"{REDIS_URL}?key_prefix={prefix}") as service:
            assert isinstance(service, RedisSessionService)
            for c in _plan(_rounds()):
                per = max(2, _total() // c)
                app = f"floor-{uuid.uuid4().hex[:8]}"
                sessions = [
                    await service.create_session(app_name=app, user_id="u", session_id=f"s{k}")
                    for k in range(c)
                ]
                calls = [
                    [_redis_append_call(service, s, k * per + i, i) for i in range(per)]
                    for k, s in enumerate(sessions)
                ]
                # All at once: this also opens the connections the writers will use.
                await asyncio.gather(*(client.ping() for _ in range(c)))

                async def append(k: int, i: int, calls: Any = calls) -> None:
                    keys, args = calls[k][i]
                    reply = await script(keys=keys, args=args)
                    assert reply[0] == b"ok", reply

                cpu = time.process_time()
                wall, samples = await _drive(c, per, append)
                levels.add(c, wall, samples, time.process_time() - cpu)
        levels.report(report)
    finally:
        found = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
        for start in range(0, len(found), 1000):
            await client.unlink(*found[start : start + 1000])
        await client.aclose()


def _redis_append_call(service: Any, session: Any, n: int, revision: int) -> Any:
    """``append.lua``'s keys and arguments for event ``n`` at ``revision``, as ours sends."""
    event = _event(n)
    prepared = PreparedAppend(
        event=event,
        event_json=event_to_json(event),
        expected_revision=revision,
        incarnation=session._incarnation,
        session_delta={"turn": n},
        app_delta={},
        user_delta={"last": n},
    )
    keys = service._keys(session.app_name, session.user_id, session.id)
    return _redis_protocol.append_call(keys, prepared, ttl_ms=0, ack_ms=0)


async def _floor_sqlite(report: Report, url: str) -> None:
    path = make_url(url).database
    assert path is not None
    connection = await aiosqlite.connect(path, isolation_level=None)
    lock = asyncio.Lock()
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=30000"):
        await connection.execute(f"PRAGMA {pragma}")
    levels = _Levels("sqlite", "raw_driver")
    try:
        for c in _plan(_rounds()):
            per = max(2, _total() // c)
            app = f"floor-{uuid.uuid4().hex[:8]}"
            stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
            await connection.executemany(
                "INSERT INTO adk_sessions (app_name, user_id, id, state, revision, create_time, "
                "update_time) VALUES (?, 'u', ?, '{}', 0, ?, ?)",
                [(app, f"s{k}", stamp, stamp) for k in range(c)],
            )
            payloads = [event_to_json(_event(i)) for i in range(per)]

            async def append(k: int, i: int, app: str = app, payloads: Any = payloads) -> None:
                async with lock:
                    await connection.execute("BEGIN IMMEDIATE")
                    await connection.execute(
                        "UPDATE adk_sessions SET revision = revision + 1, "
                        "state = json_patch(state, ?) WHERE app_name = ? AND user_id = 'u' "
                        "AND id = ? AND revision = ?",
                        (json.dumps({"turn": i}), app, f"s{k}", i),
                    )
                    await connection.execute(
                        "INSERT INTO adk_events VALUES (?, 'u', ?, ?, ?, 'inv', 1.0, ?)",
                        (app, f"s{k}", i + 1, f"e{i}", payloads[i]),
                    )
                    await connection.commit()

            cpu = time.process_time()
            wall, samples = await _drive(c, per, append)
            levels.add(c, wall, samples, time.process_time() - cpu)
        levels.report(report)
    finally:
        await connection.close()


# --- stores ----------------------------------------------------------------------------


async def _migrate(url: str) -> None:
    from adk_runtime.sql import Database, create_engine, migrate

    db = Database(create_engine(url), owns_engine=True)
    try:
        await migrate.upgrade(db)
    finally:
        await db.dispose()


def _adk_classes() -> tuple[Any, Any]:
    from google.adk.events import Event as AdkEvent
    from google.adk.events import EventActions as AdkActions

    return AdkEvent, AdkActions


async def _ours(report: Report, backend: str, url: str) -> None:
    async with session_service_from_url(url) as service:
        classes = (Event, EventActions)
        await _services(report, backend, "adk_runtime", service, classes, rounds=_rounds())


async def _adk(report: Report, backend: str, url: str) -> None:
    if not google_adk_available():
        return
    if backend == "redis":
        from google.adk.integrations.redis import RedisSessionService, RedisSessionServiceConfig

        prefix = f"adkbenchadk{uuid.uuid4().hex[:8]}:"
        config = RedisSessionServiceConfig(uri=REDIS_URL, key_prefix=prefix, ttl_seconds=0)
        service: Any = RedisSessionService(config=config)
        # It rewrites the whole session per append (O(history)): fewer events, or it takes
        # minutes. Its events/s are then flattered, not penalized.
        total: int | None = 256
    elif backend == "memory":
        from google.adk.sessions import InMemorySessionService

        service = InMemorySessionService()
        total = None
    else:
        from google.adk.sessions import DatabaseSessionService

        service = DatabaseSessionService(url)
    if backend != "redis":
        total = None
    try:
        await _services(report, backend, "google-adk", service, _adk_classes(), total)
    finally:
        close = getattr(service, "close", None)
        if close is not None:
            await close()


async def _ratios(report: Report, backend: str) -> None:
    for c in LEVELS:
        for theirs in ("raw_driver", "google-adk"):
            report.ratio(
                SUITE, backend, f"C={c} events/s", "adk_runtime", theirs, higher_is_better=True
            )


async def _backend(report: Report, backend: str) -> None:
    """Ours, the floor and google-adk on one backend (in this process)."""
    if backend == "memory":
        await _ours(report, "memory", "memory://")
        await _adk(report, "memory", "memory://")
    elif backend == "sqlite":
        with tempfile.TemporaryDirectory() as folder:
            url = f"sqlite+aiosqlite:///{Path(folder) / 'conc.db'}"
            await _migrate(url)
            await _ours(report, "sqlite", url)
            await _floor_sqlite(report, url)
            await _adk(report, "sqlite", url)
    elif backend == "spanner":
        from adk_runtime.sessions.spanner import SpannerSessionService

        async with spanner_database("conc") as url:
            schema = SpannerSessionService.from_url(url)
            async with schema:
                await schema.prepare()
            await _ours(report, "spanner", url)
        return  # no raw-driver floor, no google-adk service on Spanner
    elif backend == "postgres":
        async with postgres_database("conc") as url:
            await _migrate(url)
            await _ours(report, "postgres", url)
            await _floor_postgres(report, url)
            await _adk(report, "postgres", url)
    else:
        prefix = f"adkbenchconc{uuid.uuid4().hex[:8]}:"
        try:
            await _ours(report, "redis", f"{REDIS_URL}?key_prefix={prefix}")
        finally:
            async with redis_asyncio.Redis.from_url(REDIS_URL) as client:
                found = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
                for start in range(0, len(found), 1000):
                    await client.unlink(*found[start : start + 1000])
        await _floor_redis(report)
        await _adk(report, "redis", REDIS_URL)
    await _ratios(report, backend)


BACKENDS = ("memory", "sqlite", "postgres", "redis", "spanner")
_ROOT = Path(__file__).resolve().parent.parent  # the children run ``-m bench...`` from here


async def run(report: Report) -> None:
    """Each backend in a child process of its own; its rows join this report.

    A backend whose run fails does not stop the others; the failure is raised at the end.
    """
    failed: list[str] = []
    for backend in BACKENDS:
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "rows.json"
            command = [sys.executable, "-m", "bench.bench_concurrency", backend, str(out)]
            # The child prints its rows as it measures them; they are added here unprinted.
            done = await asyncio.to_thread(subprocess.run, command, cwd=_ROOT, check=False)
            if done.returncode != 0 or not out.exists():
                failed.append(f"{backend} (exit {done.returncode})")
                continue
            rows = json.loads(out.read_text())
        report.rows.extend(Row(**row) for row in rows)
    if failed:
        raise RuntimeError(f"concurrency runs failed: {', '.join(failed)}")


def _child(backend: str, out: str) -> None:
    report = Report()
    asyncio.run(_backend(report, backend))
    Path(out).write_text(json.dumps([dataclasses.asdict(row) for row in report.rows]))


if __name__ == "__main__":
    _child(*sys.argv[1:3])
