"""The front doors on a ``spanner:///…`` URL: the CLI, ``serve``, and moving an app over.

An app moves to Spanner by changing its URL and running ``adk-runtime db upgrade``: the
sessions a SQLite store holds are exported, imported into Spanner (every session, event and
state equal) and back, and the same commands then carry on the conversation there. Each test
gets an empty database on the emulator (no schema) and runs the real CLI as a subprocess.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from adk_runtime.sessions import session_service_from_url
from adk_runtime.sessions.spanner._schema import HEAD
from tests.durable_agent import APP as CALC
from tests.durable_agent import final_text, leave_interrupted
from tests.serving import run_cli, running_server
from tests.spanner_support import Emulator, fresh_database, spanner_url

pytestmark = [pytest.mark.spanner, pytest.mark.sqlite, pytest.mark.timeout(240)]

ECHO = "tests.server.agent:root_agent"
APPS = ("notes", "echo_app")


@pytest.fixture
async def target(spanner_emulator: Emulator) -> AsyncIterator[str]:
    """The URL of an empty Spanner database (no schema yet), dropped afterwards."""
    async with fresh_database(spanner_emulator) as database:
        yield spanner_url(spanner_emulator, database)


Cli = Callable[..., Awaitable[str]]


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """``await cli(*args, stdin=...)``: ``adk-runtime ARGS`` run in the test's directory (where
    a default artifact directory goes); it must succeed; its output."""

    async def ok(*args: str, stdin: str = "") -> str:
        result = await asyncio.to_thread(run_cli, *args, cwd=tmp_path, stdin=stdin)
        assert result.returncode == 0, result.stderr + result.stdout
        return result.stdout + result.stderr

    return ok


async def _export(cli: Cli, url: str, out: Path) -> list[dict[str, Any]]:
    """The export of ``url`` (the apps of :data:`APPS`), update times left out, sorted."""
    await cli("sessions", "export", "--url", url, *(f"--app={a}" for a in APPS), "-o", str(out))
    text = await asyncio.to_thread(out.read_text, encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines()]
    for line in lines:
        line.pop("last_update_time", None)
    head, body, end = lines[0], lines[1:-1], lines[-1]
    key = lambda o: (o["kind"], o["app_name"], o.get("user_id", ""), o.get("id", ""))  # noqa: E731
    return [head, *sorted(body, key=key), end]


async def test_an_app_moves_to_spanner_by_its_url_and_db_upgrade_and_back(
    cli: Cli, target: str, tmp_path: Path
) -> None:
    sqlite = f"sqlite+aiosqlite:///{tmp_path / 'source.db'}"
    await cli("demo", "--session-url", sqlite)
    await cli("chat", "--agent", ECHO, "--session-url", sqlite, "--user", "ann", stdin="hi\n")
    source = await _export(cli, sqlite, tmp_path / "source.jsonl")
    assert source[-1]["sessions"] == 2

    refused = await asyncio.to_thread(run_cli, "db", "check", "--url", target)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    assert f"schema version {HEAD}" in await cli("db", "upgrade", "--url", target)
    assert "is up to date" in await cli("db", "check", "--url", target)
    out = await cli("sessions", "import", str(tmp_path / "source.jsonl"), "--url", target)
    assert "imported 2 session(s) (2 created, 0 already present)" in out
    moved = await _export(cli, target, tmp_path / "spanner.jsonl")
    assert moved == source
    again = await cli("sessions", "import", str(tmp_path / "source.jsonl"), "--url", target)
    assert "(0 created, 2 already present), 0 event(s) written" in again

    listed = json.loads(
        await cli("sessions", "list", "--url", target, "--app", "echo_app", "--json")
    )
    assert [s["id"] for s in listed["sessions"]] == [_session_of(source, "echo_app")]
    # The same command, the URL changed: the conversation carries on where it was.
    said = await cli(
        "chat", "--agent", ECHO, "--session-url", target, "--user", "ann", stdin="again\n"
    )
    assert "echo: again" in said
    echo = _session_of(source, "echo_app")
    args = ("--url", target, "--app", "echo_app", "--user", "ann", "--json")
    shown = json.loads(await cli("sessions", "show", echo, *args))
    assert shown["state"]["turns"] == 2
    assert shown["revision"] == len(shown["events"])
    assert [e["content"]["parts"][0]["text"] for e in shown["events"]][-1] == "echo: again"

    back = f"sqlite+aiosqlite:///{tmp_path / 'back.db'}"
    await cli("db", "upgrade", "--url", back)
    await cli("sessions", "export", "--url", target, *(f"--app={a}" for a in APPS),
              "-o", str(tmp_path / "now.jsonl"))  # fmt: skip
    await cli("sessions", "import", str(tmp_path / "now.jsonl"), "--url", back)
    assert await _export(cli, back, tmp_path / "back.jsonl") == await _export(
        cli, target, tmp_path / "again.jsonl"
    )


def _session_of(export: list[dict[str, Any]], app: str) -> str:
    ids = [
        line["id"] for line in export if line.get("kind") == "session" and line["app_name"] == app
    ]
    assert len(ids) == 1, ids
    return str(ids[0])


async def test_run_then_resume_interrupted_invocations_on_spanner(cli: Cli, target: str) -> None:
    await cli("db", "upgrade", "--url", target)
    first = await cli("run", ECHO, "hello", "--url", target, "--user", "ann")
    assert "echo: hello" in first
    second = await cli("run", ECHO, "more", "--url", target, "--user", "ann")
    assert "echo: more" in second
    listed = json.loads(
        await cli("sessions", "list", "--url", target, "--app", "echo_app", "--json")
    )
    assert len(listed["sessions"]) == 1  # run resumed the user's latest session

    async with session_service_from_url(target) as service:
        for session_id, invocation_id in (("s1", "e-one"), ("s2", "e-two")):
            await leave_interrupted(service, "ann", session_id, invocation_id)
    found = json.loads(
        await cli("sessions", "interrupted", "--url", target, "--app", CALC, "--json")
    )
    assert [(i["sessionId"], i["invocationId"], i["status"]) for i in found] == [
        ("s1", "e-one", "failed"),
        ("s2", "e-two", "failed"),
    ]
    agent = "tests.durable_agent:root_agent"
    one = await cli(
        "resume", "--agent", agent, "--url", target, "--user", "ann", "--session", "s1",
        "--invocation", "e-one",
    )  # fmt: skip
    assert "calc: calc total=322" in one
    rest = await cli("resume", "--agent", agent, "--url", target)
    assert "e-two (session s2): resumed" in rest.splitlines()
    async with session_service_from_url(target) as service:
        for session_id in ("s1", "s2"):
            session = await service.get_session(app_name=CALC, user_id="ann", session_id=session_id)
            assert final_text(session) == "calc total=322"
    left = await cli("sessions", "interrupted", "--url", target, "--app", CALC, "--json")
    assert json.loads(left) == []


async def test_serve_takes_a_turn_on_a_spanner_url(cli: Cli, target: str, tmp_path: Path) -> None:
    await cli("db", "upgrade", "--url", target)
    session = "/apps/echo_app/users/u/sessions/s"
    body = {"userId": "u", "sessionId": "s", "newMessage": {"parts": [{"text": "hi"}]}}
    files = (tmp_path / "artifacts").as_uri()
    args = ("--agent", ECHO, "--session-url", target, "--artifact-url", files)
    with running_server(*args, "--log-level", "warning") as base:
        async with httpx.AsyncClient(timeout=30) as client:
            assert (await client.post(base + session)).status_code == 200
            ran = await client.post(base + "/run", json=body)
            assert ran.status_code == 200, ran.text
            assert ran.json()[-1]["content"]["parts"][0]["text"] == "echo: hi"
            stored = (await client.get(base + session)).json()
    assert stored["state"] == {"turns": 1}
    async with session_service_from_url(target) as service:  # in Spanner, not in the server
        found = await service.get_session(app_name="echo_app", user_id="u", session_id="s")
    assert found is not None
    assert [e.author for e in found.events] == ["user", "echo_app"]
