"""A served conversation survives a server restart (a durable store, a new server process)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.backends import REDIS_URL, drop_redis_prefix, redis_test_prefix
from tests.serving import running_server


@pytest.fixture
def redis_url() -> Iterator[str]:
    prefix = redis_test_prefix()
    try:
        yield f"{REDIS_URL}?key_prefix={prefix}"
    finally:
        asyncio.run(drop_redis_prefix(prefix))


def _serve(url: str) -> contextlib.AbstractContextManager[str]:
    return running_server(
        "--agent", "tests.server.agent:root_agent", "--session-url", url, "--log-level", "warning"
    )


@pytest.mark.redis
def test_conversation_resumes_after_a_restart(redis_url: str) -> None:
    body = {"userId": "u", "sessionId": "s", "newMessage": {"parts": [{"text": "hi"}]}}
    with _serve(redis_url) as base:
        assert httpx.post(f"{base}/apps/echo_app/users/u/sessions/s").status_code == 200
        first = httpx.post(f"{base}/run", json=body, timeout=30).json()
        assert first[0]["actions"]["stateDelta"] == {"turns": 1}
    with _serve(redis_url) as base:
        stored = httpx.get(f"{base}/apps/echo_app/users/u/sessions/s").json()
        assert stored["revision"] == 2
        assert stored["events"][1]["id"] == first[0]["id"]
        again = httpx.post(f"{base}/run", json=body, timeout=30).json()
        assert again[0]["actions"]["stateDelta"] == {"turns": 2}
        assert httpx.get(f"{base}/apps/echo_app/users/u/sessions/s").json()["revision"] == 4


@pytest.mark.sqlite
def test_shutdown_lets_a_running_invocation_finish(tmp_path: Path) -> None:
    """SIGTERM mid-invocation (client already gone): the run completes before the exit."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'sessions.db'}"
    message = {"parts": [{"text": "slow 5"}]}
    body = {"userId": "u", "sessionId": "s", "newMessage": message}
    with _serve(url) as base:
        httpx.post(f"{base}/apps/echo_app/users/u/sessions/s").raise_for_status()
        with httpx.stream("POST", f"{base}/run_sse", json=body, timeout=30) as response:
            first = next(line for line in response.iter_lines() if line.startswith("data: "))
        assert '"step":1' in first.replace(" ", "")
    # the server was terminated right after the client left, four steps before the end
    with _serve(url) as base:
        stored = httpx.get(f"{base}/apps/echo_app/users/u/sessions/s").json()
    assert stored["revision"] == len(stored["events"]) == 6
    assert stored["state"]["step"] == 5
