"""Crash consistency: a writer process is SIGKILLed at random moments, then the store is checked.

After every kill a fresh service checks the session: every acknowledged append is stored;
the only event that may be stored without an acknowledgement is the one in flight at the kill
(fully, never half); events are gapless and in order (revision == count); and the stored
session, user and app state equal the fold of the stored events' deltas.

``make test`` runs a few kills per durable backend; ``--run-reliability`` runs 50.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.reliability import writer
from tests.stores import Store, durable_params, fresh_store

ROOT = Path(__file__).resolve().parents[2]
INITIAL = {"init": True, "user:init": 1, "app:init": [1]}
SHORT_KILLS = 5
LONG_KILLS = 50


@pytest.mark.parametrize("backend", durable_params())
async def test_kill_writer_short(backend: str, tmp_path: Path) -> None:
    await _crash_loop(backend, tmp_path, kills=SHORT_KILLS, seed=1)


@pytest.mark.reliability
@pytest.mark.timeout(900)
@pytest.mark.parametrize("backend", durable_params())
async def test_kill_writer_long(backend: str, tmp_path: Path) -> None:
    await _crash_loop(backend, tmp_path, kills=LONG_KILLS, seed=None)


async def _crash_loop(backend: str, tmp_path: Path, *, kills: int, seed: int | None) -> None:
    rng = random.Random(seed)
    async with fresh_store(backend, tmp_path) as store:
        async with store.open() as service:
            await service.create_session(
                app_name="crash", user_id="u", session_id="s", state=INITIAL
            )
        acked: set[str] = set()
        in_flight: set[str] = set()
        for run in range(kills):
            out = tmp_path / f"writer-{run}.out"
            lines = await _run_and_kill(store, f"r{run}", out, rng)
            tried = [line[4:] for line in lines if line.startswith("try ")]
            acked.update(line[4:] for line in lines if line.startswith("ack "))
            if tried and tried[-1] not in acked:
                in_flight.add(tried[-1])
            await _check(store, acked, in_flight)
        assert len(acked) >= kills, "the writers made too little progress to prove anything"


async def _run_and_kill(store: Store, run: str, out: Path, rng: random.Random) -> list[str]:
    """Start a writer, SIGKILL it at a random moment, return what it printed."""
    with out.open("wb") as sink:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "tests.reliability.writer",
            store.to_json(),
            "crash",
            "u",
            "s",
            run,
            cwd=ROOT,
            stdout=sink,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            await _wait_ready(proc, out)
            await asyncio.sleep(rng.uniform(0.0, 0.4))
            assert proc.returncode is None, await _stderr(proc)
        finally:
            if proc.returncode is None:
                os.kill(proc.pid, signal.SIGKILL)
            await proc.wait()
    return (await asyncio.to_thread(out.read_text)).splitlines()


async def _wait_ready(proc: asyncio.subprocess.Process, out: Path) -> None:
    deadline = time.monotonic() + 60
    while not (await asyncio.to_thread(out.read_text)).startswith("ready"):
        assert proc.returncode is None, f"writer died: {await _stderr(proc)}"
        assert time.monotonic() < deadline, "writer did not start within 60 s"
        await asyncio.sleep(0.01)


async def _stderr(proc: asyncio.subprocess.Process) -> str:
    assert proc.stderr is not None
    return (await proc.stderr.read()).decode(errors="replace")[-2000:]


async def _check(store: Store, acked: set[str], in_flight: set[str]) -> None:
    async with store.open() as service:
        session = await service.get_session(app_name="crash", user_id="u", session_id="s")
    assert session is not None
    ids = [event.id for event in session.events]
    assert len(ids) == len(set(ids)), "an event is stored twice"
    assert session.revision == len(ids), "revision != number of events"
    assert [writer.parse_n(i) for i in ids] == list(range(1, len(ids) + 1)), "gap or disorder"
    missing = acked - set(ids)
    assert not missing, f"acknowledged appends lost: {sorted(missing)[:5]}"
    unacked = set(ids) - acked
    assert unacked <= in_flight, f"stored but never attempted last: {sorted(unacked)[:5]}"
    for event in session.events:
        assert event.actions.state_delta == writer.delta_for(writer.parse_n(event.id), event.id)
    assert session.state == writer.fold(INITIAL, session.events)
