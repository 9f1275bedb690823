"""The SQLite writers' own connection: one thread, any event loop, never a transaction left open."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.sessions.base import Session
from adk_runtime.sql import Database

pytestmark = pytest.mark.sqlite


def _event(delta: dict[str, Any]) -> Event:
    return Event(author="agent", actions=EventActions(state_delta=delta))


def _url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'w.db'}"


async def _db(service: DatabaseSessionService) -> Database:
    """The service's own Database (the one its appends write through)."""
    return await service._handle.open()


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[DatabaseSessionService]:
    async with DatabaseSessionService(_url(tmp_path)) as svc:
        yield svc


def _writer_threads() -> int:
    return sum(thread.name.startswith("adk-sqlite") for thread in threading.enumerate())


def _revision(path: Path, session_id: str) -> int:
    with sqlite3.connect(path) as other:
        row = other.execute("SELECT revision FROM adk_sessions WHERE id = ?", (session_id,))
        found = row.fetchone()
    assert found is not None
    return int(found[0])


async def test_the_writer_connection_has_every_setting_of_the_engines(
    service: DatabaseSessionService,
) -> None:
    def settings(connection: Any) -> tuple[Any, ...]:
        cursor = connection.cursor()
        found = [
            cursor.execute(f"PRAGMA {name}").fetchone()[0]
            for name in ("journal_mode", "busy_timeout", "synchronous", "foreign_keys")
        ]
        merged = cursor.execute("""SELECT adk_json_merge('{"a":1}', '{"b":2}')""").fetchone()
        return (*found, merged[0], connection.isolation_level)

    async with (await _db(service)).sqlite_writer() as writer:
        found = await writer.run(settings)
    assert found == ("wal", 30000, 1, 1, '{"a":1,"b":2}', None)


def test_the_writer_serves_two_event_loops_at_once_and_survives_a_broken_connection(
    tmp_path: Path,
) -> None:
    # Runner.run gives each call its own loop in a thread: one Database, several loops.
    service = DatabaseSessionService(_url(tmp_path))
    sessions: dict[str, Session] = {}

    async def create() -> None:
        for name in ("a", "b", "c"):
            sessions[name] = await service.create_session(
                app_name="app", user_id="u", session_id=name
            )

    async def appends(name: str, count: int) -> None:
        for i in range(count):
            await service.append_event(sessions[name], _event({"i": i, "user:n": name}))

    asyncio.run(create())
    errors: list[BaseException] = []

    def in_a_loop_of_its_own(name: str) -> None:
        try:
            asyncio.run(appends(name, 40))
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=in_a_loop_of_its_own, args=(n,)) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []

    async def break_it() -> None:  # the connection goes away under the writer
        async with (await _db(service)).sqlite_writer() as writer:
            await writer.run(lambda connection: connection.close())

    asyncio.run(break_it())
    asyncio.run(appends("c", 3))  # yet another loop, a fresh connection
    asyncio.run(service.close())

    path = tmp_path / "w.db"
    assert [_revision(path, name) for name in "abc"] == [40, 40, 3]


async def test_a_cancelled_caller_never_leaves_a_transaction_open(
    service: DatabaseSessionService, tmp_path: Path
) -> None:
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    started = threading.Event()

    def forgets_to_commit(connection: Any) -> None:
        connection.cursor().execute("BEGIN IMMEDIATE")
        connection.cursor().execute("UPDATE adk_sessions SET revision = 99")
        started.set()
        time.sleep(0.3)  # on the writer's thread; its caller is cancelled meanwhile

    async def caller() -> None:
        async with (await _db(service)).sqlite_writer() as writer:
            await writer.run(forgets_to_commit)

    task = asyncio.create_task(caller())
    await asyncio.to_thread(started.wait, 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    # The next write waits for that call, finds no transaction open, and commits.
    appended = await service.append_event(session, _event({"x": 1}))
    assert appended.id
    other = sqlite3.connect(tmp_path / "w.db", timeout=0.1, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")  # the file's write lock is free
        other.execute("ROLLBACK")
    finally:
        other.close()
    assert _revision(tmp_path / "w.db", "s") == 1


async def test_a_failing_call_rolls_back_and_the_writer_goes_on(
    service: DatabaseSessionService, tmp_path: Path
) -> None:
    session = await service.create_session(app_name="app", user_id="u", session_id="s")

    def fails_mid_transaction(connection: Any) -> None:
        connection.cursor().execute("BEGIN IMMEDIATE")
        connection.cursor().execute("UPDATE adk_sessions SET revision = 99")
        raise KeyError("a bug")

    async with (await _db(service)).sqlite_writer() as writer:
        with pytest.raises(KeyError):
            await writer.run(fails_mid_transaction)
        assert not await writer.run(lambda connection: connection.in_transaction)
    await service.append_event(session, _event({"x": 1}))
    assert _revision(tmp_path / "w.db", "s") == 1


async def test_dispose_closes_the_writer_and_the_database_opens_it_again(
    tmp_path: Path,
) -> None:
    before = _writer_threads()
    service = DatabaseSessionService(_url(tmp_path))
    session = await service.create_session(app_name="app", user_id="u", session_id="s")
    await service.append_event(session, _event({"x": 1}))
    assert _writer_threads() == before + 1
    await (await _db(service)).dispose()
    for _ in range(100):  # the idle thread ends once it sees the shutdown
        if _writer_threads() == before:
            break
        await asyncio.sleep(0.01)
    assert _writer_threads() == before
    await service.append_event(session, _event({"x": 2}))
    await service.close()
    assert _revision(tmp_path / "w.db", "s") == 2
