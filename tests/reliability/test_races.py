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
import time
from pathlib import Path
from typing import Any

import pytest

from tests.reliability import racer
from tests.reliability.stores import Store, durable_params, fresh_store

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("backend", durable_params())
async def test_race_short(backend: str, tmp_path: Path) -> None:
    await _race(backend, tmp_path, processes=3, sessions=4, seconds=3.0)


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
        start = time.time() + 3.0
        results = await asyncio.gather(
            *(_run_racer(store, w, keys, start, start + seconds) for w in range(processes))
        )
        unexpected = [error for result in results for error in result["unexpected"]]
        assert not unexpected, "\n".join(unexpected[:5])
        assert sum(result["stale"] for result in results) > 0, "no conflict happened: no race"
        await _check(store, keys, results)


async def _run_racer(
    store: Store, worker: int, keys: list[str], start: float, end: float
) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "tests.reliability.racer",
        store.to_json(),
        str(worker),
        ",".join(keys),
        str(start),
        str(end),
        str(worker * 7919),
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout=end - time.time() + 120)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err.decode(errors="replace")[-3000:]
    result: dict[str, Any] = json.loads(out.decode().strip().splitlines()[-1])
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
