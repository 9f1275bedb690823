"""Artifacts and memory: save/load throughput per store, memory search latency over 10k events.

Artifacts: sequential saves, then loads of the latest version, of 1 KiB and 1 MiB parts on
memory, file, SQLite (a file) and PostgreSQL (a database created for the run, dropped after).
google-adk 2.13's in-memory and file stores run the same workload when the ``bench`` extra is
installed. Memory: 10,000 text events (100 sessions of 100 events, plus another user's) are
remembered, then 100 two-word searches are timed on SQLite (FTS5), PostgreSQL (tsvector +
GIN) and in memory (ours and google-adk's keyword match, which return every match).
"""

from __future__ import annotations

import contextlib
import random
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from google.genai import types

from adk_runtime.artifacts import FileArtifactService, InMemoryArtifactService
from adk_runtime.artifacts.database import DatabaseArtifactService
from adk_runtime.events import Event
from adk_runtime.memory import InMemoryMemoryService
from adk_runtime.memory.database import DatabaseMemoryService
from adk_runtime.sessions import Session
from bench.common import Report, add_latency, google_adk_available, time_each
from tests.sql_support import create_database, drop_database, unique_name, upgrade

SIZES = {"1KiB": (1024, 300), "1MiB": (1024 * 1024, 20)}  # bytes, operations
SESSIONS, EVENTS_PER_SESSION, SEARCHES = 100, 100, 100
WORDS = [
    "flight",
    "hotel",
    "paris",
    "tokyo",
    "booking",
    "museum",
    "train",
    "ticket",
    "dinner",
    "weather",
    "meeting",
    "budget",
    "invoice",
    "report",
    "contract",
    "garden",
    "recipe",
    "coffee",
    "concert",
    "festival",
    "beach",
    "mountain",
    "river",
]
KEY = {"app_name": "bench", "user_id": "u", "session_id": "s"}


@contextlib.asynccontextmanager
async def _postgres() -> AsyncIterator[str]:
    name = unique_name("adk_bench")
    url = await create_database(name)
    try:
        await upgrade(url)
        yield url
    finally:
        await drop_database(name)


def _part(size: int) -> types.Part:
    data = random.randbytes(size)
    return types.Part(inline_data=types.Blob(data=data, mime_type="application/octet-stream"))


async def _artifact_run(report: Report, store: str, service: Any, impl: str) -> None:
    for label, (size, count) in SIZES.items():
        part = _part(size)
        filename = f"blob-{label}.bin"

        async def save(_: int, part: types.Part = part, filename: str = filename) -> None:
            await service.save_artifact(filename=filename, artifact=part, **KEY)

        async def load(_: int, filename: str = filename) -> None:
            loaded = await service.load_artifact(filename=filename, **KEY)
            assert loaded is not None

        saves = await time_each(count, save)
        loads = await time_each(count, load)
        add_latency(report, "artifacts", store, f"save {label}", saves, impl)
        add_latency(report, "artifacts", store, f"load {label}", loads, impl)
        if size >= 1024 * 1024:
            mib = count * size / 2**20
            report.add(
                "artifacts", store, "save MiB/s", mib / (sum(saves) / 1000), "MiB/s", impl=impl
            )
            report.add(
                "artifacts", store, "load MiB/s", mib / (sum(loads) / 1000), "MiB/s", impl=impl
            )


async def _adk_artifacts(report: Report, tmp: Path) -> None:
    from google.adk.artifacts import FileArtifactService as AdkFile
    from google.adk.artifacts import InMemoryArtifactService as AdkMemory

    await _artifact_run(report, "memory", AdkMemory(), "google-adk")
    await _artifact_run(report, "file", AdkFile(root_dir=tmp / "adk-files"), "google-adk")
    for label in SIZES:
        for op in ("save", "load"):
            for store in ("memory", "file"):
                report.ratio(
                    "artifacts",
                    store,
                    f"{op} {label} p50",
                    "adk_runtime",
                    "google-adk",
                    higher_is_better=False,
                )


def _session(user: str, index: int, rng: random.Random) -> Session:
    events = [
        Event(
            author="user" if i % 2 == 0 else "bot",
            content=types.Content(
                parts=[types.Part(text=" ".join(rng.choices(WORDS, k=12)) + f" note{index}x{i}")]
            ),
        )
        for i in range(EVENTS_PER_SESSION)
    ]
    return Session(id=f"s{index}", app_name="bench", user_id=user, events=events)


async def _memory_workload(
    report: Report, store: str, service: Any, impl: str, to_session: Any = None
) -> None:
    rng = random.Random(7)
    start = time.perf_counter()
    for index in range(SESSIONS):
        for user in ("u", "other"):
            session = _session(user, index, rng)
            await service.add_session_to_memory(to_session(session) if to_session else session)
    elapsed = time.perf_counter() - start
    events = 2 * SESSIONS * EVENTS_PER_SESSION
    report.add("memory", store, "add events rate", events / elapsed, "events/s", impl=impl)
    queries = [" ".join(rng.sample(WORDS, 2)) for _ in range(SEARCHES)]

    async def search(i: int) -> None:
        response = await service.search_memory(app_name="bench", user_id="u", query=queries[i])
        assert response.memories

    samples = await time_each(SEARCHES, search)
    add_latency(report, "memory", store, "search (10k events)", samples, impl)
    limit = getattr(service, "max_results", None)
    report.rows[-3].note = f"top {limit} returned" if limit else "every match returned"


async def _memory_run(report: Report, store: str, url: str) -> None:
    service = DatabaseMemoryService(url, auto_migrate=True)
    try:
        await _memory_workload(report, store, service, "adk_runtime")
    finally:
        await service.close()


async def _adk_memory(report: Report) -> None:
    from google.adk.events import Event as AdkEvent
    from google.adk.memory import InMemoryMemoryService as AdkMemory
    from google.adk.sessions import Session as AdkSession

    def convert(session: Session) -> Any:
        events = [AdkEvent(author=e.author, content=e.content) for e in session.events]
        return AdkSession(
            id=session.id, app_name=session.app_name, user_id=session.user_id, events=events
        )

    await _memory_workload(report, "memory", AdkMemory(), "google-adk", convert)
    report.ratio(
        "memory",
        "memory",
        "search (10k events) p50",
        "adk_runtime",
        "google-adk",
        higher_is_better=False,
    )


async def run(report: Report) -> None:
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        await _artifact_run(report, "memory", InMemoryArtifactService(), "adk_runtime")
        await _artifact_run(report, "file", FileArtifactService(tmp / "files"), "adk_runtime")
        sqlite_url = f"sqlite+aiosqlite:///{tmp / 'bench.db'}"
        sqlite_store = DatabaseArtifactService(sqlite_url)
        try:
            await _artifact_run(report, "sqlite", sqlite_store, "adk_runtime")
        finally:
            await sqlite_store.close()
        async with _postgres() as pg_url:
            pg_store = DatabaseArtifactService(pg_url)
            try:
                await _artifact_run(report, "postgres", pg_store, "adk_runtime")
            finally:
                await pg_store.close()
            await _memory_run(report, "postgres", pg_url)
        await _memory_run(report, "sqlite", f"sqlite+aiosqlite:///{tmp / 'memory.db'}")
        await _memory_workload(report, "memory", InMemoryMemoryService(), "adk_runtime")
        if google_adk_available():
            await _adk_artifacts(report, tmp)
            await _adk_memory(report)
