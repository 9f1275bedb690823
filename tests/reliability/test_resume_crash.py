"""Durable execution under SIGKILL: an invocation killed at a random moment is resumed by a
fresh process and ends as an uninterrupted run does.

Each round: a worker process (``tests/reliability/resumable.py``) sends the message and runs
a multi-step tool-using agent on a scripted model, and is SIGKILLed at a random moment; the
parent reads what the log holds at the kill; a second, fresh process resumes the invocation
(``Runner.run_async(invocation_id=…)``). Then:

- the invocation completed: its final answer and the final state equal those of an
  uninterrupted run of the same agent (on ``memory://``);
- every call whose response was committed before the kill ran exactly once;
- a call committed without its response ran at most twice (the retry saw ``attempt == 2``);
- every other call ran exactly once; no event is stored twice; nothing is left open.

The agents: one LlmAgent; a SequentialAgent of two; a LoopAgent of two rounds; a
ParallelAgent of two branches (each sub-agent a three-step tool user); a workflow graph of
two such agents and three function nodes (a fan-out and a join); an agent delegating to a
``task`` sub-agent, then a ``single_turn`` one (each a three-step tool user). A function
node whose output was committed before the kill ran exactly once, any other at most twice.
``make test`` runs a kill or two per durable backend and shape; ``--run-reliability`` runs 50.
"""

from __future__ import annotations

import asyncio
import collections
import os
import random
import signal
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from adk_runtime.events import Event
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from tests.reliability import resumable
from tests.stores import Store, durable_params, fresh_store, postgres_admin_dsn

ROOT = Path(__file__).resolve().parents[2]
SHORT_KILLS = 1
"""One kill per shape in the default suite, on one backend per shape (a smoke run: each
round starts two worker processes); ``--run-reliability`` kills each shape LONG_KILLS times
on every backend, at random moments."""
LONG_KILLS = 50
SHAPES = list(resumable.SHAPES)
KILL_WINDOW = {
    "llm": 0.25,
    "sequential": 0.35,
    "loop": 0.3,
    "parallel": 0.3,
    "workflow": 0.4,
    "task": 0.35,
    "tasknode": 0.3,
    "authnode": 0.3,
}
"""Seconds after start-up within which the kill lands (about one uninterrupted run)."""


def _smoke_pairs() -> list[Any]:
    """One backend per shape, in turn (every backend gets two or three shapes): the default
    suite's smoke run. ``--run-reliability`` runs every shape on every backend."""
    backends = durable_params()
    return [
        pytest.param(
            shape,
            *backends[i % len(backends)].values,
            id=f"{shape}-{backends[i % len(backends)].id}",
            marks=backends[i % len(backends)].marks,
        )
        for i, shape in enumerate(SHAPES)
    ]


@pytest.mark.parametrize(("shape", "backend"), _smoke_pairs())
async def test_killed_invocations_resume_short(backend: str, shape: str, tmp_path: Path) -> None:
    await _crash_rounds(backend, shape, tmp_path, kills=SHORT_KILLS, seed=7)


@pytest.mark.reliability
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("backend", durable_params())
async def test_killed_invocations_resume_long(backend: str, shape: str, tmp_path: Path) -> None:
    await _crash_rounds(backend, shape, tmp_path, kills=LONG_KILLS, seed=None)


async def _reference(shape: str) -> tuple[dict[str, Any], list[str]]:
    """The final state and answers of an uninterrupted run."""
    service = InMemorySessionService()
    await service.create_session(app_name=resumable.APP, user_id=resumable.USER, session_id="s")
    agent = resumable.build(shape, None, simulate=False)
    await resumable.run_to_end(service, agent, "s")
    session = await _read(service, "s")
    return session.state, _answers(session.events)


def _answers(events: list[Event]) -> list[str]:
    return [
        part.text
        for event in events
        if event.author != "user" and event.is_final_response() and event.content is not None
        for part in event.content.parts or []
        if part.text
    ]


async def _read(service: BaseSessionService, session_id: str) -> Any:
    session = await service.get_session(
        app_name=resumable.APP, user_id=resumable.USER, session_id=session_id
    )
    assert session is not None
    return session


async def _crash_rounds(
    backend: str, shape: str, tmp_path: Path, *, kills: int, seed: int | None
) -> None:
    rng = random.Random(seed)
    state, answers = await _reference(shape)
    if shape == "authnode":  # the node read the key the user gave (kept in memory only)
        assert state["signed_in"] == resumable.API_KEY
    moments: collections.Counter[str] = collections.Counter()
    async with fresh_store(backend, tmp_path) as store:
        for run in range(kills):
            sid = f"s{run}-{uuid.uuid4().hex[:6]}"
            async with store.open() as service:
                await service.create_session(
                    app_name=resumable.APP, user_id=resumable.USER, session_id=sid
                )
            log = tmp_path / f"tools-{run}.log"
            await _worker(
                store, shape, sid, log, "start", kill_after=rng.uniform(0.0, KILL_WINDOW[shape])
            )
            await _settled(store)
            async with store.open() as service:
                at_kill = await _read(service, sid)
            moments[_moment(at_kill.events)] += 1
            await _worker(store, shape, sid, log, "resume", kill_after=None)
            async with store.open() as service:
                after = await _read(service, sid)
                still_open = await service.list_interrupted_invocations(
                    app_name=resumable.APP,
                    user_id=resumable.USER,
                    session_id=sid,
                    include_running=True,
                )
            _check(after, at_kill.events, log, state, answers)
            assert still_open == []
    # The kills must have landed at different stages, or they prove little.
    print(f"{backend}/{shape}: events stored at the kill → rounds: {dict(moments)}")
    if kills >= 20:
        assert len(moments) >= 3, moments


def _moment(events: list[Event]) -> str:
    """Where the kill landed: how many events of the invocation were stored."""
    return str(len(events))


def _check(
    session: Any,
    at_kill: list[Event],
    log: Path,
    state: dict[str, Any],
    answers: list[str],
) -> None:
    ids = [event.id for event in session.events]
    assert len(ids) == len(set(ids)), "an event is stored twice"
    assert session.revision == len(ids)
    assert sorted(_answers(session.events)) == sorted(answers)  # parallel branches: any order
    assert session.state == state
    runs: collections.Counter[str] = collections.Counter()
    retries: set[str] = set()
    node_runs: collections.Counter[str] = collections.Counter()
    for line in log.read_text().splitlines() if log.exists() else []:
        call_id, attempt = line.split()
        if call_id.startswith("node:"):
            node_runs[call_id.removeprefix("node:")] += 1
            continue
        runs[call_id] += 1
        if attempt != "1":
            retries.add(call_id)
    answered = {r.id for e in at_kill for r in e.get_function_responses()}
    called = {c.id for e in at_kill for c in e.get_function_calls()}
    every_call = {
        c.id
        for e in session.events
        for c in e.get_function_calls()
        if c.name in resumable.TOOL_NAMES  # not delegations, finish_task, transfers
    }
    for call_id in every_call:
        if call_id in answered:
            assert runs[call_id] == 1, f"{call_id}: committed, yet run {runs[call_id]} times"
        elif call_id in called:
            assert 1 <= runs[call_id] <= 2, f"{call_id}: run {runs[call_id]} times"
        else:
            assert runs[call_id] == 1, f"{call_id}: run {runs[call_id]} times"
            assert call_id not in retries
    assert set(runs) <= every_call
    finished = {e.node_info.path for e in at_kill if e.output is not None}
    for path, count in node_runs.items():
        if path in finished:
            assert count == 1, f"{path}: its output was committed, yet it ran {count} times"
        else:
            assert 1 <= count <= 2, f"{path}: ran {count} times"
    stored = {e.node_info.path for e in session.events if e.output is not None}
    assert set(node_runs) <= stored, "a node ran but its output is not stored"


async def _settled(store: Store) -> None:
    """Wait until PostgreSQL has finished what the killed worker had sent.

    A statement (an append's commit) that reached the server before the SIGKILL still runs
    there; reading the log before its backend has ended could miss an event it commits.
    """
    if store.backend != "postgres":
        return
    import asyncpg

    connection = await asyncpg.connect(postgres_admin_dsn(store.url))
    try:
        deadline = time.monotonic() + 30
        while await connection.fetchval(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()"
        ):
            assert time.monotonic() < deadline, "the killed worker's backends did not end"
            await asyncio.sleep(0.01)
    finally:
        await connection.close()


async def _worker(
    store: Store, shape: str, sid: str, log: Path, mode: str, *, kill_after: float | None
) -> None:
    out = log.with_suffix(f".{mode}.out")
    with out.open("wb") as sink:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.reliability.resumable",
            store.to_json(),
            shape,
            sid,
            str(log),
            mode,
            cwd=ROOT,
            stdout=sink,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            await _wait_for(proc, out, "ready")
            if kill_after is not None:
                await asyncio.sleep(kill_after)
            else:
                await _wait_for(proc, out, "done")
                assert await proc.wait() == 0, await _stderr(proc)
        finally:
            if proc.returncode is None:
                os.kill(proc.pid, signal.SIGKILL)
            await proc.wait()


async def _wait_for(proc: asyncio.subprocess.Process, out: Path, word: str) -> None:
    deadline = time.monotonic() + 90
    while word not in (await asyncio.to_thread(out.read_text)).split():
        if proc.returncode is not None and word == "ready":
            raise AssertionError(f"worker died: {await _stderr(proc)}")
        if proc.returncode not in (None, 0):
            raise AssertionError(f"worker failed: {await _stderr(proc)}")
        assert time.monotonic() < deadline, f"worker did not say {word!r} within 90 s"
        await asyncio.sleep(0.01)


async def _stderr(proc: asyncio.subprocess.Process) -> str:
    assert proc.stderr is not None
    return (await proc.stderr.read()).decode(errors="replace")[-3000:]
