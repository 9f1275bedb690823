"""SQLite group commit: appends waiting together share one transaction, each its own outcome."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from adk_runtime.errors import SessionNotFoundError, StaleSessionError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import DatabaseSessionService
from adk_runtime.sessions.sql import _group_commit

pytestmark = pytest.mark.sqlite


def _event(delta: dict[str, Any] | None = None, **kwargs: Any) -> Event:
    return Event(author="agent", actions=EventActions(state_delta=dict(delta or {})), **kwargs)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[DatabaseSessionService]:
    async with DatabaseSessionService(f"sqlite+aiosqlite:///{tmp_path / 'g.db'}") as svc:
        yield svc


@pytest.fixture
def batch_sizes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The size of every transaction the group commit runs (the real function still runs)."""
    sizes: list[int] = []
    real = _group_commit.run_batch

    def recording(connection: sqlite3.Connection, apply: Any, batch: list[Any]) -> Any:
        sizes.append(len(batch))
        return real(connection, apply, batch)

    monkeypatch.setattr(_group_commit, "run_batch", recording)
    return sizes


async def test_concurrent_appends_share_transactions_and_all_commit(
    service: DatabaseSessionService, batch_sizes: list[int]
) -> None:
    sessions = [
        await service.create_session(app_name="app", user_id=f"u{k % 3}", session_id=f"s{k}")
        for k in range(40)
    ]

    async def conversation(k: int) -> None:
        for i in range(10):
            await service.append_event(sessions[k], _event({"i": i, "user:last": k}))

    await asyncio.gather(*(conversation(k) for k in range(40)))

    assert sum(batch_sizes) == 400
    assert max(batch_sizes) > 1  # they were grouped
    assert len(batch_sizes) < 400
    for k in range(40):
        stored = await service.get_session(app_name="app", user_id=f"u{k % 3}", session_id=f"s{k}")
        assert stored is not None
        assert stored.revision == 10
        assert [e.id for e in stored.events] == [e.id for e in sessions[k].events]
        assert stored.state["i"] == 9


async def test_each_batch_is_one_call_on_the_writers_own_thread(
    service: DatabaseSessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Our own connection on our own thread (public API only), not a driver's internals.
    threads: list[str] = []
    real = _group_commit.run_batch

    def recording(cursor: Any, apply: Any, batch: list[Any]) -> Any:
        threads.append(threading.current_thread().name)
        return real(cursor, apply, batch)

    monkeypatch.setattr(_group_commit, "run_batch", recording)
    sessions = [
        await service.create_session(app_name="app", user_id="u", session_id=f"s{k}")
        for k in range(8)
    ]
    await asyncio.gather(*(service.append_event(s, _event({"k": 1})) for s in sessions))
    assert threads
    assert set(threads) == {"adk-sqlite-writer"}


async def test_each_append_of_a_batch_keeps_its_own_outcome(
    service: DatabaseSessionService, batch_sizes: list[int]
) -> None:
    fresh = await service.create_session(app_name="app", user_id="u", session_id="fresh")
    fresh2 = await service.create_session(app_name="app", user_id="u2", session_id="fresh")
    stale = await service.create_session(app_name="app", user_id="u", session_id="stale")
    retried = await service.create_session(app_name="app", user_id="u", session_id="retried")
    gone = await service.create_session(app_name="app", user_id="u", session_id="gone")
    first = _event({"x": 1})
    await service.append_event(retried, first)
    other = await service.get_session(app_name="app", user_id="u", session_id="stale")
    assert other is not None
    await service.append_event(other, _event({"y": "moved on"}))  # `stale` is now behind
    await service.delete_session(app_name="app", user_id="u", session_id="gone")
    again = Event.model_validate(first.model_dump())
    retried_copy = await service.get_session(app_name="app", user_id="u", session_id="retried")
    assert retried_copy is not None
    retried_copy.revision = 0  # as if the first attempt's acknowledgement was lost
    retried_copy.events = []
    batch_sizes.clear()

    results = await asyncio.gather(
        service.append_event(fresh, _event({"a": 1})),  # runs alone: the writer was free
        service.append_event(fresh2, _event({"a": 2})),  # the rest wait and go together
        service.append_event(stale, _event({"y": "lost update"})),
        service.append_event(retried_copy, again),
        service.append_event(gone, _event({"z": 1})),
        # prepared at the same revision as the first: stale once the first committed
        service.append_event(fresh, _event({"a": 3})),
        return_exceptions=True,
    )

    assert batch_sizes == [1, 5]
    assert isinstance(results[0], Event)
    assert isinstance(results[1], Event)
    assert isinstance(results[2], StaleSessionError)
    assert isinstance(results[3], Event)
    assert results[3].id == first.id  # the stored event, nothing written twice
    assert isinstance(results[4], SessionNotFoundError)
    assert isinstance(results[5], StaleSessionError)
    stored_fresh = await service.get_session(app_name="app", user_id="u", session_id="fresh")
    assert stored_fresh is not None
    assert stored_fresh.state == {"a": 1}
    assert stored_fresh.revision == 1
    stored_fresh2 = await service.get_session(app_name="app", user_id="u2", session_id="fresh")
    assert stored_fresh2 is not None
    assert stored_fresh2.state == {"a": 2}
    stored_stale = await service.get_session(app_name="app", user_id="u", session_id="stale")
    assert stored_stale is not None
    assert stored_stale.state["y"] == "moved on"
    assert stored_stale.revision == 1
    stored_retried = await service.get_session(app_name="app", user_id="u", session_id="retried")
    assert stored_retried is not None
    assert [e.id for e in stored_retried.events] == [first.id]


async def test_a_cancelled_caller_does_not_strand_the_batch(
    service: DatabaseSessionService,
) -> None:
    sessions = [
        await service.create_session(app_name="app", user_id="u", session_id=f"s{k}")
        for k in range(6)
    ]
    tasks = [
        asyncio.create_task(service.append_event(session, _event({"k": k})))
        for k, session in enumerate(sessions)
    ]
    await asyncio.sleep(0)
    tasks[2].cancel()  # waiting in the batch: it stops waiting, the others are answered
    done = await asyncio.gather(*tasks, return_exceptions=True)
    assert isinstance(done[2], asyncio.CancelledError)
    assert all(isinstance(result, Event) for k, result in enumerate(done) if k != 2)
    for k in range(6):
        stored = await service.get_session(app_name="app", user_id="u", session_id=f"s{k}")
        assert stored is not None
        if k != 2:
            assert stored.state == {"k": k}
        assert stored.revision in ((0, 1) if k == 2 else (1,))


async def test_an_append_no_store_can_be_at_fails_alone_in_a_batch(
    service: DatabaseSessionService, batch_sizes: list[int]
) -> None:
    sessions = [
        await service.create_session(app_name="app", user_id="u", session_id=f"s{k}")
        for k in range(20)
    ]
    sessions[7].revision = 2**63  # no driver binds it
    batch_sizes.clear()

    results = await asyncio.gather(
        *(service.append_event(s, _event({"k": k})) for k, s in enumerate(sessions)),
        return_exceptions=True,
    )

    assert max(batch_sizes) > 1  # it was offered to a shared transaction
    assert isinstance(results[7], StaleSessionError)
    assert all(isinstance(r, Event) for k, r in enumerate(results) if k != 7), results
    for k in range(20):
        stored = await service.get_session(app_name="app", user_id="u", session_id=f"s{k}")
        assert stored is not None
        assert stored.revision == (0 if k == 7 else 1)
        assert stored.state == ({} if k == 7 else {"k": k})


def _rows_apply(connection: sqlite3.Connection, params: dict[str, Any]) -> tuple[Any, ...]:
    """Two inserts per append (the second binds ``params['then']``); an error after the first
    must leave nothing of it."""
    connection.execute("INSERT INTO t (v) VALUES (?)", (params["v"],))
    connection.execute("INSERT INTO t (v) VALUES (?)", (params["then"],))
    if params.get("fail"):
        raise params["fail"]
    return (params["v"],)


@pytest.fixture
def table(tmp_path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
    connection.execute("CREATE TABLE t (v)")
    return connection


def test_any_error_of_one_append_rolls_back_its_savepoint_only(
    table: sqlite3.Connection,
) -> None:
    batch: list[dict[str, Any]] = [
        {"v": "a", "then": "a2"},
        {"v": "b", "then": 2**63},  # the driver cannot bind it: OverflowError
        {"v": "c", "then": "c\ud800"},  # not valid Unicode: UnicodeEncodeError
        {"v": "d", "then": "d2", "fail": KeyError("a bug in one append")},
        {"v": "e", "then": "e2"},
    ]

    outcomes = _group_commit.run_batch(table, _rows_apply, batch)

    assert outcomes[0] == ("a",)
    assert isinstance(outcomes[1], OverflowError)
    assert isinstance(outcomes[2], UnicodeEncodeError)
    assert isinstance(outcomes[3], KeyError)
    assert outcomes[4] == ("e",)
    rows = sorted(v for (v,) in table.execute("SELECT v FROM t"))
    assert rows == ["a", "a2", "e", "e2"]


def test_an_error_that_ends_the_transaction_fails_the_whole_batch_with_that_error(
    table: sqlite3.Connection,
) -> None:
    class DiskFull(Exception):
        pass

    def rolled_back(connection: sqlite3.Connection, params: dict[str, Any]) -> tuple[Any, ...]:
        if params["v"] == "b":  # as SQLite does on a full disk: the whole transaction is gone
            connection.execute("ROLLBACK")
            raise DiskFull
        return _rows_apply(connection, params)

    batch: list[dict[str, Any]] = [{"v": v, "then": v + "2"} for v in "abc"]
    with pytest.raises(DiskFull):
        _group_commit.run_batch(table, rolled_back, batch)
    assert table.execute("SELECT count(*) FROM t").fetchone() == (0,)
    assert not table.in_transaction
