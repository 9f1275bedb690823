"""Durable execution over HTTP on a real ``adk-runtime serve --resume-interrupted`` (on a
SQLite file and on Spanner)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from adk_runtime.sessions import session_service_from_url
from tests.durable_agent import APP, final_text, leave_interrupted
from tests.serving import running_server
from tests.stores import served_store


@pytest.fixture(
    params=[
        pytest.param("sqlite", marks=pytest.mark.sqlite),
        pytest.param("spanner", marks=pytest.mark.spanner),
    ]
)
async def url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with served_store(request.param, tmp_path) as found:
        yield found


def _serve_args(url: str, tmp_path: Path) -> tuple[str, ...]:
    files = (tmp_path / "artifacts").as_uri()  # not the default directory (in the checkout)
    return ("--agent", "tests.durable_agent:root_agent", "--session-url", url,
            "--artifact-url", files)  # fmt: skip


async def _wait_until_empty(client: httpx.AsyncClient, seconds: float = 30) -> None:
    # Running ones too: an invocation the start-up resume holds is not listed otherwise, so
    # on a busy machine the list would be empty before it had finished.
    deadline = time.monotonic() + seconds
    url = f"/apps/{APP}/interrupted-invocations"
    while (await client.get(url, params={"includeRunning": "true"})).json():
        assert time.monotonic() < deadline, "serve --resume-interrupted did not finish them"
        await asyncio.sleep(0.1)


async def test_serve_finishes_interrupted_invocations_and_resumes_and_forks(
    url: str, tmp_path: Path
) -> None:
    async with session_service_from_url(url) as service:
        await leave_interrupted(service, "ann", "before-start", "e-before")
    args = _serve_args(url, tmp_path)
    with running_server(*args, "--resume-interrupted", "--log-level", "warning") as base:
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            await _wait_until_empty(client)  # finished at start-up
            got = await client.get(f"/apps/{APP}/users/ann/sessions/before-start")
            assert got.json()["events"][-1]["content"]["parts"][0]["text"] == "calc total=322"

            async with session_service_from_url(url) as service:
                await leave_interrupted(service, "ann", "later", "e-later")
            listed = await client.get(
                f"/apps/{APP}/interrupted-invocations", params={"userId": "ann"}
            )
            assert [(i["sessionId"], i["status"]) for i in listed.json()] == [("later", "failed")]

            resume = f"/apps/{APP}/users/ann/sessions/later/invocations/e-later/resume"
            streamed = await client.post(resume)
            assert streamed.status_code == 200, streamed.text
            events = [
                json.loads(line[len("data: ") :])
                for line in streamed.text.splitlines()
                if line.startswith("data: ")
            ]
            assert events[-1]["content"]["parts"][0]["text"] == "calc total=322"
            assert all(e["invocationId"] == "e-later" for e in events)
            again = await client.post(resume)
            assert again.status_code == 409  # finished: not resumed twice, nothing written

            fork = f"/apps/{APP}/users/ann/sessions/later/fork"
            first_id = events[0]["id"]
            forked = await client.post(
                fork, json={"newSessionId": "what-if", "atEventId": first_id}
            )
            assert forked.status_code == 200, forked.text
            body = forked.json()
            assert body["id"] == "what-if"
            assert len(body["events"]) == 3  # message, call, then the first resumed event
            assert (await client.post(fork, json={"newSessionId": "what-if"})).status_code == 409
            missing = await client.post(fork, json={"atEventId": "no-such-event"})
            assert missing.status_code == 404
    async with session_service_from_url(url) as service:
        session = await service.get_session(app_name=APP, user_id="ann", session_id="later")
        assert final_text(session) == "calc total=322"


async def test_serve_resumes_an_invocation_held_at_start_up_once_its_lease_runs_out(
    url: str, tmp_path: Path
) -> None:
    # The process killed mid-tool and the server restarted within the lease: at start-up the
    # invocation is still held; it is resumed when the lease runs out.
    lease = 20.0
    async with session_service_from_url(url) as service:
        await leave_interrupted(service, "ann", "killed", "e-killed", lease_seconds=lease)
    claimed = time.monotonic()
    args = _serve_args(url, tmp_path)
    with running_server(*args, "--resume-interrupted", "--log-level", "warning") as base:
        assert time.monotonic() < claimed + lease, "the server started after the lease ended"
        async with httpx.AsyncClient(base_url=base, timeout=30) as client:
            await _wait_until_empty(client, seconds=lease + 30)
            got = await client.get(f"/apps/{APP}/users/ann/sessions/killed")
            assert got.json()["events"][-1]["content"]["parts"][0]["text"] == "calc total=322"
