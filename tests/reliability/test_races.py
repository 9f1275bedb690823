"""Races: N processes x M sessions on one durable store, with deliberate stale writers.

Each racer process (``racer.py``) mixes appends, appends through stale session objects,
retries of acknowledged events, reads, listing and create/append/delete of private sessions.
Afterwards: every acknowledged event is stored exactly once, nothing else is stored, no state
key of any scope is lost, and the only error any process saw was ``StaleSessionError``.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.reliability import racer
from tests.stores import Store, durable_params, fresh_store

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("backend", durable_params())
async def test_race_short(backend: str, tmp_path: Path) -> None:
    await _race(backend, tmp_path, processes=3, sessions=4, seconds=2.0)


@pytest.mark.reliability
@pytest.mark.timeout(600)
@pytest.mark.parametrize("backend", durable_params())
async def test_race_long(backend: str, tmp_path: Path) -> None:
    await _race(backend, tmp_path, processes=6, sessions=8, seconds=30.0)


async def _race(
    backend: str, tmp_path: Path, *, processes: int, sessions: int, seconds: float
) -> None:
    async with fresh_store(backend, tmp_path) as store:
        keys = [f"u{j % 2}/s{j}" for j in range(sessions)]
        async with store.open() as service:
            for key in keys:
                user, sid = key.split("/")
                await service.create_session(app_name=racer.APP, user_id=user, session_id=sid)
        procs = [await _start_racer(store, w, keys, seconds) for w in range(processes)]
        try:
            for proc in procs:
                await _wait_ready(proc)
            for proc in procs:  # all connected: start together
                assert proc.stdin is not None
                proc.stdin.write(b"go\n")
                await proc.stdin.drain()
            results = [await _result(proc, seconds) for proc in procs]
        finally:
            for proc in procs:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
        unexpected = [error for result in results for error in result["unexpected"]]
        assert not unexpected, "\n".join(unexpected[:5])
        assert sum(result["stale"] for result in results) > 0, "no conflict happened: no race"
        await _check(store, keys, results)


async def _start_racer(
    store: Store, worker: int, keys: list[str], seconds: float
) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.reliability.racer",
        store.to_json(),
        str(worker),
        ",".join(keys),
        str(seconds),
        str(worker * 7919),
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def _wait_ready(proc: asyncio.subprocess.Process) -> None:
    assert proc.stdout is not None
    line = await asyncio.wait_for(proc.stdout.readline(), timeout=120)
    if line != b"ready\n":
        assert proc.stderr is not None
        err = await proc.stderr.read()
        raise AssertionError(
            f"racer did not start: {line!r} {err.decode(errors='replace')[-3000:]}"
        )


async def _result(proc: asyncio.subprocess.Process, seconds: float) -> dict[str, Any]:
    out, err = await asyncio.wait_for(proc.communicate(), timeout=seconds + 120)
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
    assert result["ops"] > 0, "a racer did nothing"
    return result


async def _check(store: Store, keys: list[str], results: list[dict[str, Any]]) -> None:
    app_keys: set[str] = set()
    user_keys: dict[str, set[str]] = {}
    async with store.open() as service:
        for key in keys:
            user, sid = key.split("/")
            acked = [i for result in results for i in result["acked"][key]]
            session = await service.get_session(app_name=racer.APP, user_id=user, session_id=sid)
            assert session is not None
            ids = [event.id for event in session.events]
            assert len(ids) == len(set(ids)), f"{key}: an event is stored twice"
            assert sorted(ids) == sorted(acked), f"{key}: stored events != acknowledged ones"
            assert session.revision == len(ids)
            for worker_ids in _by_worker(ids).values():
                assert worker_ids == sorted(worker_ids, key=_counter), f"{key}: order broken"
            for event_id in ids:
                assert session.state[f"k-{event_id}"] == 1, f"{key}: lost session key"
                user_keys.setdefault(user, set()).add(f"user:k-{event_id}")
                app_keys.add(f"app:k-{event_id}")
            if ids:
                assert session.state["last"] == ids[-1]
        for user, wanted in user_keys.items():
            listed = await service.list_sessions(app_name=racer.APP, user_id=user)
            for session in listed.sessions:
                assert wanted <= session.state.keys(), f"lost user: keys of {user}"
                assert app_keys <= session.state.keys(), "lost app: keys"
            assert {s.id for s in listed.sessions} == {
                k.split("/")[1] for k in keys if k.startswith(user + "/")
            }


def _counter(event_id: str) -> int:
    return int(event_id.rsplit("-", 1)[1])


def _by_worker(ids: list[str]) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for event_id in ids:
        grouped.setdefault(event_id.split("-", 1)[0], []).append(event_id)
    return grouped
