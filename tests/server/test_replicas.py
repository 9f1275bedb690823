"""Two ``adk-runtime serve`` replicas on one store: one turn at a time, no orphans, no doubles.

Each test starts two real server processes on the same SQLite file, PostgreSQL database or
Redis key prefix, and drives them over HTTP as a load balancer would.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serving import running_server
from tests.stores import durable_params, served_store

pytestmark = pytest.mark.timeout(180)

SESSION = "/apps/echo_app/users/u/sessions/s"


@contextlib.contextmanager
def _replicas(url: str, *extra: str) -> Iterator[tuple[str, str]]:
    args = ("--agent", "tests.server.agent:root_agent", "--session-url", url)
    with (
        running_server(*args, "--log-level", "warning", *extra) as a,
        running_server(*args, "--log-level", "warning", *extra) as b,
    ):
        yield a, b


@pytest.fixture(params=durable_params())
async def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with served_store(request.param, tmp_path) as url:
        yield url


def _body(text: str, **extra: Any) -> dict[str, Any]:
    return {"userId": "u", "sessionId": "s", "newMessage": {"parts": [{"text": text}]}, **extra}


def _texts(stored: dict[str, Any]) -> list[tuple[str, str]]:
    return [(e["author"], e["content"]["parts"][0]["text"]) for e in stored["events"]]


async def test_a_message_for_a_busy_session_on_another_replica_writes_nothing(
    store_url: str, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"
    with _replicas(store_url, "--session-wait", "0.3") as (a, b):
        async with httpx.AsyncClient(timeout=30) as client:
            assert (await client.post(a + SESSION)).status_code == 200
            holding = asyncio.Event()

            async def held_turn() -> list[str]:
                body = _body(f"gate {gate}", stateDelta={"from": "a"})
                lines: list[str] = []
                async with client.stream("POST", f"{a}/run_sse", json=body) as response:
                    assert response.status_code == 200
                    async for line in response.aiter_lines():
                        if line.startswith("data: "):
                            lines.append(line)
                            holding.set()  # A's turn holds the session until the gate opens
                return lines

            held = asyncio.ensure_future(held_turn())
            try:
                await holding.wait()
                refused = await client.post(f"{b}/run", json=_body("hi", stateDelta={"from": "b"}))
            finally:
                gate.touch()
            assert refused.status_code == 409
            assert int(refused.headers["Retry-After"]) >= 1
            assert "another replica" in refused.json()["detail"]
            assert len(await held) == 2
            stored = (await client.get(b + SESSION)).json()
    # A's message with its two events; nothing at all of B's refused message.
    assert stored["revision"] == 3
    assert _texts(stored) == [
        ("user", f"gate {gate}"),
        ("echo_app", "holding"),
        ("echo_app", "released"),
    ]
    assert stored["state"] == {"from": "a", "step": 2}


async def test_a_retried_message_is_stored_and_answered_once_across_replicas(
    store_url: str,
) -> None:
    with _replicas(store_url) as (a, b):
        async with httpx.AsyncClient(timeout=30) as client:
            assert (await client.post(a + SESSION)).status_code == 200
            headers = {"Idempotency-Key": "client-msg-1"}
            first, second = await asyncio.gather(
                client.post(f"{a}/run", json=_body("hello"), headers=headers),
                client.post(f"{b}/run", json=_body("hello"), headers=headers),
            )
            stored = (await client.get(a + SESSION)).json()
    assert first.status_code == second.status_code == 200
    assert [e["id"] for e in first.json()] == [e["id"] for e in second.json()]
    assert _texts(stored) == [("user", "hello"), ("echo_app", "echo: hello")]
    assert stored["events"][0]["id"] == "client-msg-1"
    assert stored["state"]["turns"] == 1


async def test_many_concurrent_messages_on_one_session_leave_no_orphans(store_url: str) -> None:
    with _replicas(store_url, "--session-wait", "1") as (a, b):
        async with httpx.AsyncClient(timeout=60) as client:
            assert (await client.post(a + SESSION)).status_code == 200
            replies = await asyncio.gather(
                *(client.post(f"{(a, b)[i % 2]}/run_sse", json=_body(f"m{i}")) for i in range(40))
            )
            stored = (await client.get(a + SESSION)).json()
    statuses = [reply.status_code for reply in replies]
    assert set(statuses) <= {200, 409}
    ok = [f"m{i}" for i, status in enumerate(statuses) if status == 200]
    texts = _texts(stored)
    # Every stored user message is followed by its own answer; refused ones left nothing.
    users = [text for author, text in texts if author == "user"]
    assert sorted(users) == sorted(ok)
    assert texts == [
        pair for text in users for pair in (("user", text), ("echo_app", f"echo: {text}"))
    ]
    assert stored["state"]["turns"] == len(ok)


async def test_a_turn_of_a_deleted_session_never_frees_the_new_sessions_turn(
    store_url: str, tmp_path: Path
) -> None:
    # Issue 48 defect 1: A's turn holds s; s is deleted and created again; B's turn holds the
    # new s; A's turn then fails on the vanished session and releases. B's turn is unaffected
    # (no 409 mid-turn, answered) and a third message waits for it (409 after the wait).
    old_gate, new_gate = tmp_path / "old", tmp_path / "new"
    with _replicas(store_url, "--session-wait", "0.3") as (a, b):
        async with httpx.AsyncClient(timeout=30) as client:
            assert (await client.post(a + SESSION)).status_code == 200

            async def turn(base: str, gate: Path, holding: asyncio.Event) -> list[str]:
                lines: list[str] = []
                body = _body(f"gate {gate}")
                async with client.stream("POST", f"{base}/run_sse", json=body) as response:
                    assert response.status_code == 200
                    async for line in response.aiter_lines():
                        if line.startswith("data: "):
                            lines.append(line)
                            holding.set()
                return lines

            old_holding, new_holding = asyncio.Event(), asyncio.Event()
            old_turn = asyncio.ensure_future(turn(a, old_gate, old_holding))
            new_turn: asyncio.Future[list[str]] | None = None
            try:
                await old_holding.wait()
                assert (await client.delete(b + SESSION)).status_code == 200
                assert (await client.post(b + SESSION)).status_code == 200
                new_turn = asyncio.ensure_future(turn(b, new_gate, new_holding))
                await new_holding.wait()
                old_gate.touch()
                old_lines = await old_turn  # its second event finds the session re-created
                third = await client.post(f"{a}/run", json=_body("third"))
            finally:
                old_gate.touch()
                new_gate.touch()
            assert new_turn is not None
            new_lines = await new_turn
            stored = (await client.get(a + SESSION)).json()
    assert '"error' in old_lines[-1]
    assert third.status_code == 409
    assert len(new_lines) == 2
    assert all('"error' not in line for line in new_lines)
    assert _texts(stored) == [
        ("user", f"gate {new_gate}"),
        ("echo_app", "holding"),
        ("echo_app", "released"),
    ]
