"""google-adk's Runner in separate processes on one durable store: resume and race."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from adk_runtime.integrations.google_adk import DurableSessionService
from tests.integrations.support import APP, artifact_uri, store_uri
from tests.serving import ROOT, cli_env
from tests.stores import durable_params

pytestmark = pytest.mark.parametrize("backend", durable_params())


def _worker(uri: str, session_id: str, *texts: str, **env: str) -> subprocess.Popen[str]:
    env.setdefault("ADK_TEST_ARTIFACT_URI", artifact_uri(uri, Path(env.pop("TMP"))))
    return subprocess.Popen(
        [sys.executable, "-m", "tests.integrations.adk_worker", uri, session_id, *texts],
        cwd=ROOT,
        env=cli_env(**env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _report(proc: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    report: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return report


async def _create(uri: str) -> None:
    sessions = DurableSessionService(uri)
    try:
        await sessions.create_session(app_name=APP, user_id="u", session_id="s")
    finally:
        await sessions.close()


async def test_a_second_process_resumes_the_conversation(backend: str, tmp_path: Path) -> None:
    async with store_uri(backend, tmp_path) as uri:
        await _create(uri)
        first = _report(_worker(uri, "s", "remember apples", TMP=str(tmp_path)))
        assert first["replies"] == ["stored apples"]
        second = _report(_worker(uri, "s", "hello", TMP=str(tmp_path)))
        # the new process's model was sent the whole history: 4 contents of turn 1 + 1
        assert second["replies"] == ["echo: hello (history 5)"]
        sessions = DurableSessionService(uri)
        try:
            stored = await sessions.get_session(app_name=APP, user_id="u", session_id="s")
        finally:
            await sessions.close()
        assert stored is not None
        assert stored.state == {"notes": ["apples"], "user:last": "apples", "app:count": 1}


async def test_two_racing_processes_lose_nothing(backend: str, tmp_path: Path) -> None:
    turns = 4
    async with store_uri(backend, tmp_path) as uri:
        await _create(uri)
        a_ready, b_ready = str(tmp_path / "a.ready"), str(tmp_path / "b.ready")
        # Both first model calls wait for each other: both turns have stored their user
        # message by then, so one of the two replies is written from a stale session object.
        procs = [
            _worker(
                uri,
                "s",
                *(f"{name} {i}" for i in range(turns)),
                ADK_TEST_BARRIER=barrier,
                ADK_TEST_MODEL_DELAY="0.01",
                TMP=str(tmp_path),
            )
            for name, barrier in (("a", f"{a_ready},{b_ready}"), ("b", f"{b_ready},{a_ready}"))
        ]
        reports = [_report(proc) for proc in procs]
        sessions = DurableSessionService(uri)
        try:
            stored = await sessions.get_session(app_name=APP, user_id="u", session_id="s")
        finally:
            await sessions.close()
    assert stored is not None
    stored_ids = [event.id for event in stored.events]
    assert len(stored_ids) == len(set(stored_ids))
    assert sum(report["stale"] for report in reports) >= 1  # the race really happened
    for report in reports:  # every event a Runner yielded as written is stored
        assert set(report["yielded"]) <= set(stored_ids)
        assert len(report["replies"]) == turns
    replies = [
        e.content.parts[0].text
        for e in stored.events
        if e.author == APP and e.content and e.content.parts and e.content.parts[0].text
    ]
    assert len(replies) == 2 * turns  # every successful turn's reply, exactly once
    names = {path.name for path in tmp_path.iterdir()}  # noqa: ASYNC240
    assert {Path(a_ready).name, Path(b_ready).name} <= names  # both reached the barrier
