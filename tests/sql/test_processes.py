"""Several OS processes on one SQLite file or PostgreSQL database (contract §4.3)."""

from __future__ import annotations

import multiprocessing
from collections import Counter

from adk_runtime.sessions import DatabaseSessionService
from tests.sql import _workers

ROUNDS = 20


def _run(processes: list[multiprocessing.process.BaseProcess]) -> None:
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=240)
    assert [process.exitcode for process in processes] == [0] * len(processes)


async def test_two_processes_stale_writers_one_wins_each_round(sql_url: str) -> None:
    async with DatabaseSessionService(sql_url) as service:
        await service.create_session(app_name="a", user_id="u", session_id="s")
    spawn = multiprocessing.get_context("spawn")
    barrier, results = spawn.Barrier(2), spawn.Queue()
    _run(
        [
            spawn.Process(target=_workers.stale_writer, args=(sql_url, i, ROUNDS, barrier, results))
            for i in range(2)
        ]
    )
    outcomes = [results.get(timeout=10) for _ in range(2 * ROUNDS)]
    per_round = Counter((round_, outcome) for round_, _, outcome, _ in outcomes)
    assert all(per_round[(r, "won")] == 1 and per_round[(r, "stale")] == 1 for r in range(ROUNDS))
    winners = {round_: index for round_, index, outcome, _ in outcomes if outcome == "won"}
    async with DatabaseSessionService(sql_url) as service:
        stored = await service.get_session(app_name="a", user_id="u", session_id="s")
    assert stored is not None
    assert stored.revision == ROUNDS
    assert [(e.invocation_id, e.author) for e in stored.events] == [
        (f"r{r}", f"w{winners[r]}") for r in range(ROUNDS)
    ]
    assert stored.state["last"] == winners[ROUNDS - 1]


async def test_four_processes_write_distinct_app_and_user_keys(sql_url: str) -> None:
    count = 10
    spawn = multiprocessing.get_context("spawn")
    barrier = spawn.Barrier(4)
    _run(
        [
            spawn.Process(target=_workers.scope_writer, args=(sql_url, i, count, barrier))
            for i in range(4)
        ]
    )
    async with DatabaseSessionService(sql_url) as service:
        stored = await service.get_session(app_name="a", user_id="u", session_id="s0")
    assert stored is not None
    expected = {
        f"{scope}:p{i}_{n}": n for scope in ("app", "user") for i in range(4) for n in range(count)
    }
    assert {k: v for k, v in stored.state.items() if k.startswith(("app:", "user:"))} == expected
