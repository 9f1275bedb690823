"""``serve --abort-on-disconnect``: a client that goes away stops its invocation (google-adk's way).

Without the flag the invocation runs to completion (``test_http.py``). With it, what was
committed stays, the turn is closed as ``INVOCATION_ABORTED`` (never listed as interrupted,
never resumed), and the session is free at once for the next message.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serving import running_server
from tests.stores import durable_params, served_store

STEPS = 25  # "slow 25": 25 events 0.2 s apart, 5 s if it ran to the end


@pytest.fixture(params=durable_params())
async def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with served_store(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def server(store_url: str) -> Iterator[str]:
    with running_server(
        "--agent", "tests.server.agent:root_agent", "--session-url", store_url,
        "--abort-on-disconnect", "--log-level", "warning",
    ) as url:  # fmt: skip
        yield url


def _body(user: str, text: str) -> dict[str, Any]:
    message = {"role": "user", "parts": [{"text": text}]}
    return {"appName": "echo_app", "userId": user, "sessionId": "s", "newMessage": message}


async def _closed_turn(http: httpx.AsyncClient, user: str, turn: int) -> list[dict[str, Any]]:
    """The events of the session's ``turn``-th invocation, once it has been closed."""
    for _ in range(100):
        session = (await http.get(f"/apps/echo_app/users/{user}/sessions/s")).json()
        invocations = list(dict.fromkeys(e["invocationId"] for e in session["events"]))
        if len(invocations) >= turn:
            events = [e for e in session["events"] if e["invocationId"] == invocations[turn - 1]]
            if any(e.get("errorCode") == "INVOCATION_ABORTED" for e in events):
                return events
        await asyncio.sleep(0.1)
    raise AssertionError("the invocation was not closed as aborted")


async def test_a_client_that_goes_away_stops_its_invocation(server: str) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(base_url=server, timeout=30) as http:
        (await http.post(f"/apps/echo_app/users/{user}/sessions/s")).raise_for_status()

        # /run_sse: read one event, then hang up.
        body = _body(user, f"slow {STEPS}")
        async with http.stream("POST", "/run_sse", json=body) as response:
            async for line in response.aiter_lines():
                if line.startswith("data: "):
                    assert json.loads(line[6:])["actions"]["stateDelta"] == {"step": 1}
                    break
        streamed = await _closed_turn(http, user, 1)
        steps = [e for e in streamed if e["author"] == "echo_app" and "errorCode" not in e]
        assert 1 <= len(steps) < STEPS

        # /run: the client gives up waiting (a timeout closes the connection).
        with pytest.raises(httpx.ReadTimeout):
            await http.post("/run", json=body, timeout=0.5)
        waited = await _closed_turn(http, user, 2)
        assert len([e for e in waited if e["author"] == "echo_app"]) < STEPS

        # The session is free at once, and nothing is left to resume.
        after = await http.post("/run", json=_body(user, "hi"), timeout=5)
        assert after.status_code == 200
        assert after.json()[-1]["content"]["parts"][0]["text"] == "echo: hi"
        listed = await http.get(
            "/apps/echo_app/interrupted-invocations",
            params={"userId": user, "sessionId": "s", "includeRunning": "true"},
        )
        assert listed.status_code == 200
        assert listed.json() == []
