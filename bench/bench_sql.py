"""SQL sessions: append, recent-k and full reads, list pages; ours vs the raw driver and google-adk.

Per backend (a SQLite file, a fresh PostgreSQL database): 1,000 appends of ~400-byte events
with a session key and a ``user:`` key in the delta, timed one by one; the raw-driver floor
writes the same rows by hand (aiosqlite / asyncpg, one transaction per event); google-adk
2.13's DatabaseSessionService runs on the same database when it is installed (the ``bench``
extra). Then ``get_session(num_recent_events=20)`` at 1k and 10k events, a full
``get_session`` at 1k events and the first page of 50 of ``list_sessions`` among 10k sessions.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
from google.genai import types
from sqlalchemy.engine import make_url

from adk_runtime.events import Event, EventActions, event_to_json
from adk_runtime.sessions import DatabaseSessionService, GetSessionConfig
from adk_runtime.sessions.sql.tables import events as events_table
from adk_runtime.sessions.sql.tables import sessions as sessions_table
from adk_runtime.sql import Database, create_engine, migrate
from bench.common import (
    Report,
    add_latency,
    google_adk_available,
    median_ms,
    postgres_database,
    time_each,
)

SUITE = "sql"
APPENDS = 1000
TEXT = "x" * 140  # with the envelope, each stored event is ~400 bytes


def _event(i: int) -> Event:
    return Event(
        invocation_id=f"inv-{i // 4}",
        author="agent",
        content=types.Content(role="model", parts=[types.Part(text=TEXT)]),
        actions=EventActions(state_delta={"turn": i, "user:last_turn": i}),
    )


# --- backends -------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def _sqlite() -> AsyncIterator[str]:
    with tempfile.TemporaryDirectory() as folder:
        yield f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"


def _dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


# --- appends --------------------------------------------------------------------------------


async def _ours_append(report: Report, backend: str, url: str) -> DatabaseSessionService:
    service = DatabaseSessionService(url, auto_migrate=True)
    session = await service.create_session(app_name="bench", user_id="u", session_id="ours")
    events = [_event(i) for i in range(APPENDS)]

    async def append(i: int) -> None:
        await service.append_event(session, events[i])

    add_latency(report, SUITE, backend, "append", await time_each(APPENDS, append), "adk_runtime")
    return service


async def _raw_sqlite(url: str) -> Callable[[int], Awaitable[None]]:
    path = make_url(url).database
    assert path is not None
    connection = await aiosqlite.connect(path, isolation_level=None)
    for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "busy_timeout=30000"):
        await connection.execute(f"PRAGMA {pragma}")
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    await connection.execute(
        "INSERT INTO adk_sessions (app_name, user_id, id, state, revision, create_time, "
        "update_time) VALUES ('bench', 'u', 'raw', '{}', 0, ?, ?)",
        (now, now),
    )
    events = [_event(i) for i in range(APPENDS)]

    async def append(i: int) -> None:
        event = events[i]
        payload = event_to_json(event)
        stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
        await connection.execute("BEGIN IMMEDIATE")
        cursor = await connection.execute(
            "UPDATE adk_sessions SET revision = revision + 1, update_time = ?, "
            "state = json_patch(state, ?) WHERE app_name = 'bench' AND user_id = 'u' "
            "AND id = 'raw' AND revision = ? RETURNING revision",
            (stamp, f'{{"turn":{i}}}', i),
        )
        (revision,) = await cursor.fetchone()  # type: ignore[misc]
        await connection.execute(
            "INSERT INTO adk_events VALUES ('bench', 'u', 'raw', ?, ?, ?, ?, ?)",
            (revision, event.id, event.invocation_id, event.timestamp, payload),
        )
        await connection.execute(
            "INSERT INTO adk_user_states VALUES ('bench', 'u', ?, ?) ON CONFLICT DO UPDATE "
            "SET state = json_patch(state, excluded.state), update_time = excluded.update_time",
            (f'{{"last_turn":{i}}}', stamp),
        )
        await connection.commit()

    append.close = connection.close  # type: ignore[attr-defined]
    return append


async def _raw_postgres(url: str) -> Callable[[int], Awaitable[None]]:
    connection = await asyncpg.connect(_dsn(url))
    now = datetime.now(timezone.utc)
    await connection.execute(
        "INSERT INTO adk_sessions (app_name, user_id, id, state, revision, create_time, "
        "update_time) VALUES ('bench', 'u', 'raw', '{}', 0, $1, $1)",
        now,
    )
    events = [_event(i) for i in range(APPENDS)]

    async def append(i: int) -> None:
        event = events[i]
        payload = event_to_json(event)
        stamp = datetime.now(timezone.utc)
        async with connection.transaction():
            revision = await connection.fetchval(
                "UPDATE adk_sessions SET revision = revision + 1, update_time = $1, "
                "state = state || $2::jsonb WHERE app_name = 'bench' AND user_id = 'u' "
                "AND id = 'raw' AND revision = $3 RETURNING revision",
                stamp,
                f'{{"turn":{i}}}',
                i,
            )
            await connection.execute(
                "INSERT INTO adk_events VALUES ('bench', 'u', 'raw', $1, $2, $3, $4, $5)",
                revision,
                event.id,
                event.invocation_id,
                event.timestamp,
                payload,
            )
            await connection.execute(
                "INSERT INTO adk_user_states VALUES ('bench', 'u', $1::jsonb, $2) "
                "ON CONFLICT (app_name, user_id) DO UPDATE "
                "SET state = adk_user_states.state || excluded.state, "
                "update_time = excluded.update_time",
                f'{{"last_turn":{i}}}',
                stamp,
            )

    append.close = connection.close  # type: ignore[attr-defined]
    return append


async def _raw_append(report: Report, backend: str, url: str) -> None:
    append = await (_raw_sqlite(url) if backend == "sqlite" else _raw_postgres(url))
    try:
        add_latency(
            report, SUITE, backend, "append", await time_each(APPENDS, append), "raw_driver"
        )
    finally:
        await append.close()  # type: ignore[attr-defined]


async def _adk_append(report: Report, backend: str, url: str) -> Any:
    from google.adk.events import Event as AdkEvent
    from google.adk.events import EventActions as AdkActions
    from google.adk.sessions import DatabaseSessionService as AdkService

    service = AdkService(url)
    session = await service.create_session(app_name="bench", user_id="u", session_id="adk")
    events = [
        AdkEvent(
            invocation_id=f"inv-{i // 4}",
            author="agent",
            content=types.Content(role="model", parts=[types.Part(text=TEXT)]),
            actions=AdkActions(state_delta={"turn": i, "user:last_turn": i}),
        )
        for i in range(APPENDS)
    ]

    async def append(i: int) -> None:
        await service.append_event(session, events[i])

    add_latency(report, SUITE, backend, "append", await time_each(APPENDS, append), "google-adk")
    return service


# --- reads ----------------------------------------------------------------------------------


async def _bulk_session(db: Database, session_id: str, count: int) -> None:
    now = datetime.now(timezone.utc)
    payload = event_to_json(_event(0))
    async with db.write() as connection:
        await connection.execute(
            sessions_table.insert(),
            [
                {
                    "app_name": "bench",
                    "user_id": "u",
                    "id": session_id,
                    "state": {"turn": count},
                    "revision": count,
                    "create_time": now,
                    "update_time": now,
                }
            ],
        )
        rows = [
            {
                "app_name": "bench",
                "user_id": "u",
                "session_id": session_id,
                "sequence": n,
                "id": f"e{n}",
                "invocation_id": f"inv-{n // 4}",
                "timestamp": 1.0e9 + n,
                "payload": payload,
            }
            for n in range(1, count + 1)
        ]
        for start in range(0, count, 2000):
            await connection.execute(events_table.insert(), rows[start : start + 2000])


async def _bulk_listing(db: Database, count: int) -> None:
    base = datetime.now(timezone.utc).timestamp()
    rows = [
        {
            "app_name": "listing",
            "user_id": "u",
            "id": f"s{n:05d}",
            "state": {"n": n},
            "revision": 0,
            "create_time": datetime.fromtimestamp(base - n, timezone.utc),
            "update_time": datetime.fromtimestamp(base - n, timezone.utc),
        }
        for n in range(count)
    ]
    async with db.write() as connection:
        for start in range(0, count, 2000):
            await connection.execute(sessions_table.insert(), rows[start : start + 2000])


async def _timed(report: Report, backend: str, metric: str, impl: str, count: int, op: Any) -> None:
    samples = await time_each(count, op)
    report.add(SUITE, backend, f"{metric} p50", median_ms(samples), "ms", impl=impl)


async def _ours_reads(
    report: Report, backend: str, url: str, service: DatabaseSessionService
) -> None:
    db = Database(create_engine(url), owns_engine=True)
    try:
        await _bulk_session(db, "big10k", 10_000)
        await _bulk_listing(db, 10_000)
    finally:
        await db.dispose()
    recent = GetSessionConfig(num_recent_events=20)

    async def get(session_id: str, config: GetSessionConfig | None) -> Any:
        session = await service.get_session(
            app_name="bench", user_id="u", session_id=session_id, config=config
        )
        assert session is not None
        return session

    await _timed(
        report, backend, "get recent-20 @1k", "adk_runtime", 200, lambda _: get("ours", recent)
    )
    await _timed(
        report, backend, "get recent-20 @10k", "adk_runtime", 200, lambda _: get("big10k", recent)
    )
    await _timed(report, backend, "get full @1k", "adk_runtime", 20, lambda _: get("ours", None))

    async def page(_: int) -> None:
        listed = await service.list_sessions(app_name="listing", user_id="u", page_size=50)
        assert len(listed.sessions) == 50

    await _timed(report, backend, "list first page of 50 @10k", "adk_runtime", 200, page)


async def _adk_reads(report: Report, backend: str, service: Any) -> None:
    from google.adk.sessions.base_session_service import GetSessionConfig as AdkConfig

    async def get(config: Any) -> None:
        session = await service.get_session(
            app_name="bench", user_id="u", session_id="adk", config=config
        )
        assert session is not None

    recent = AdkConfig(num_recent_events=20)
    await _timed(report, backend, "get recent-20 @1k", "google-adk", 50, lambda _: get(recent))
    await _timed(report, backend, "get full @1k", "google-adk", 10, lambda _: get(None))


# --- driver ---------------------------------------------------------------------------------


async def _backend(report: Report, backend: str, url: str) -> None:
    db = Database(create_engine(url), owns_engine=True)
    try:
        await migrate.upgrade(db)
    finally:
        await db.dispose()
    service = await _ours_append(report, backend, url)
    try:
        await _raw_append(report, backend, url)
        adk = None
        if google_adk_available():
            adk = await _adk_append(report, backend, url)
        else:
            print("  google-adk is not installed (pip install -e '.[bench]'): no comparison column")
        await _ours_reads(report, backend, url, service)
        if adk is not None:
            await _adk_reads(report, backend, adk)
            await adk.close()
    finally:
        await service.close()
    for metric, higher in (("append rate", True), ("append p50", False)):
        for theirs in ("raw_driver", "google-adk"):
            report.ratio(SUITE, backend, metric, "adk_runtime", theirs, higher_is_better=higher)
    for metric in ("get full @1k p50", "get recent-20 @1k p50"):
        report.ratio(SUITE, backend, metric, "adk_runtime", "google-adk", higher_is_better=False)


async def run(report: Report) -> None:
    started = time.perf_counter()
    async with _sqlite() as url:
        await _backend(report, "sqlite", url)
    async with postgres_database("sql") as url:
        await _backend(report, "postgres", url)
    took = time.perf_counter() - started
    print(f"  (sql bench took {took:.0f} s; figures are noisy on a shared machine)")
