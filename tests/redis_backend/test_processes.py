"""Several OS processes on one Redis: stale writers fail closed, distinct keys never get lost."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from typing import Any

import pytest

from adk_runtime.sessions import RedisSessionService
from tests.backends import REDIS_URL
from tests.redis_backend import workers

pytestmark = pytest.mark.redis

_SPAWN = multiprocessing.get_context("spawn")


def _run_processes(target: Callable[..., None], args: list[tuple[Any, ...]]) -> list[Any]:
    """Start one process per argument tuple (plus a shared barrier and queue); collect results."""
    barrier = _SPAWN.Barrier(len(args))
    out = _SPAWN.Queue()
    processes = [_SPAWN.Process(target=target, args=(*a, barrier, out)) for a in args]
    for process in processes:
        process.start()
    try:
        results = [out.get(timeout=120) for _ in processes]
    finally:
        for process in processes:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
    assert [process.exitcode for process in processes] == [0] * len(processes)
    return results


async def test_two_processes_racing_on_one_revision_one_wins_each_round(
    service: RedisSessionService, prefix: str
) -> None:
    rounds = 20
    await service.create_session(app_name=workers.APP, user_id="u", session_id="shared")
    args = [(REDIS_URL, prefix, name, rounds) for name in ["a", "b"]]
    results = await asyncio.to_thread(_run_processes, workers.race_one_session, args)
    by_round: dict[int, list[tuple[int, bool]]] = {}
    for per_process in results:
        for round_no, loaded, won in per_process:
            by_round.setdefault(round_no, []).append((loaded, won))
    for round_no in range(rounds):
        (loaded_a, won_a), (loaded_b, won_b) = by_round[round_no]
        assert loaded_a == loaded_b == round_no  # both started the round at one revision
        assert won_a != won_b  # exactly one append of the two committed
    stored = await service.get_session(app_name=workers.APP, user_id="u", session_id="shared")
    assert stored is not None
    assert stored.revision == rounds
    ids = [event.id for event in stored.events]
    assert len(ids) == len(set(ids)) == rounds
    assert [event_id.split("-")[0] for event_id in ids] == [f"r{i}" for i in range(rounds)]
    winners = [event.author for event in stored.events]
    assert stored.state["winner"] == winners[-1]
    for name in ["a", "b"]:
        wins = [i for i, winner in enumerate(winners) if winner == name]
        assert stored.state.get(f"user:{name}") == (wins[-1] if wins else None)


async def test_four_processes_writing_distinct_keys_lose_none(
    service: RedisSessionService, prefix: str
) -> None:
    count = 25
    args = [(REDIS_URL, prefix, index, count) for index in range(4)]
    revisions = await asyncio.to_thread(_run_processes, workers.write_distinct_keys, args)
    assert revisions == [count] * 4
    for user in ["u0", "u1"]:
        listed = await service.list_sessions(app_name=workers.APP, user_id=user)
        assert len(listed.sessions) == 2
        for session in listed.sessions:
            state = session.state
            app_keys = {key for key in state if key.startswith("app:")}
            user_keys = {key for key in state if key.startswith("user:")}
            assert app_keys == {f"app:p{i}_{j}" for i in range(4) for j in range(count)}
            pair = [int(user[1]) * 2, int(user[1]) * 2 + 1]
            assert user_keys == {f"user:p{i}_{j}" for i in pair for j in range(count)}
            assert (session.revision, state["n"]) == (count, count - 1)


_RUN_ON_THREAD_LOOPS = """
import asyncio, sys
from google.genai import types
from adk_runtime.runners import Runner
from adk_runtime.sessions import RedisSessionService
from adk_runtime.testing import ScriptedAgent, text_event

service = RedisSessionService(sys.argv[1], key_prefix=sys.argv[2])
agent = ScriptedAgent(name="bot", script=[text_event("a"), text_event("b")] * 3)
runner = Runner(app_name="a", agent=agent, session_service=service)
asyncio.run(service.create_session(app_name="a", user_id="u", session_id="s"))
message = types.Content(role="user", parts=[types.Part(text="hi")])
for _ in range(3):
    print(len(list(runner.run(user_id="u", session_id="s", new_message=message))))
stored = asyncio.run(service.get_session(app_name="a", user_id="u", session_id="s"))
print(stored.revision)
asyncio.run(service.close())  # on yet another loop: old connections are dropped quietly
print("closed")
"""


def test_a_service_used_through_runner_run_closes_from_another_loop(prefix: str) -> None:
    # Runner.run drives each call on a new loop in a thread; the client follows the loop,
    # and close() on the caller's loop afterwards works. (A subprocess: connections left
    # behind by finished loops only warn when collected.)
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-c", _RUN_ON_THREAD_LOOPS, REDIS_URL, prefix],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["6", "6", "6", "21", "closed"]
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
