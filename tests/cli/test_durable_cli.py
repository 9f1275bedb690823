"""``adk-runtime sessions interrupted|fork`` and ``adk-runtime resume`` on a SQLite file."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from google.genai import types

from adk_runtime.artifacts.database import DatabaseArtifactService
from adk_runtime.cli import main
from adk_runtime.sessions import session_service_from_url
from tests.durable_agent import APP, final_text, leave_interrupted
from tests.serving import run_cli

pytestmark = pytest.mark.sqlite

AGENT = "tests.durable_agent:root_agent"


def _prepare(url: str, *items: tuple[str, str]) -> None:
    async def go() -> None:
        async with session_service_from_url(url) as service:
            for session_id, invocation_id in items:
                await leave_interrupted(service, "ann", session_id, invocation_id)

    asyncio.run(go())


def _final(url: str, session_id: str) -> str:
    async def go() -> str:
        async with session_service_from_url(url) as service:
            session = await service.get_session(app_name=APP, user_id="ann", session_id=session_id)
            return final_text(session)

    return asyncio.run(go())


def test_list_then_resume_every_interrupted_invocation(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    _prepare(url, ("s1", "e-one"), ("s2", "e-two"))
    listed = run_cli("sessions", "interrupted", "--url", url, "--app", APP, "--json")
    assert listed.returncode == 0, listed.stderr
    found = json.loads(listed.stdout)
    assert [(i["sessionId"], i["invocationId"], i["status"]) for i in found] == [
        ("s1", "e-one", "failed"),
        ("s2", "e-two", "failed"),
    ]
    table = run_cli("sessions", "interrupted", "--url", url, "--app", APP)
    assert "e-one" in table.stdout
    assert "2 invocation(s)" in table.stdout

    one = run_cli(
        "resume", "--agent", AGENT, "--url", url, "--user", "ann", "--session", "s1",
        "--invocation", "e-one",
    )  # fmt: skip
    assert one.returncode == 0, one.stderr
    assert "calc: calc total=322" in one.stdout
    again = run_cli(
        "resume", "--agent", AGENT, "--url", url, "--user", "ann", "--session", "s1",
        "--invocation", "e-one",
    )  # fmt: skip
    assert again.returncode == 1
    assert "is not open" in again.stderr

    rest = run_cli("resume", "--agent", AGENT, "--url", url)
    assert rest.returncode == 0, rest.stderr
    assert rest.stdout.strip() == "e-two (session s2): resumed"
    assert _final(url, "s2") == "calc total=322"
    empty = run_cli("sessions", "interrupted", "--url", url, "--app", APP, "--json")
    assert json.loads(empty.stdout) == []


def test_fork_prints_the_new_id_and_refuses_a_taken_one(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    _prepare(url, ("s1", "e-one"))
    forked = run_cli(
        "sessions", "fork", "s1", "--url", url, "--app", APP, "--user", "ann", "--new-id", "s1b"
    )
    assert forked.returncode == 0, forked.stderr
    assert forked.stdout.strip() == "s1b"
    assert "2 event(s)" in forked.stderr
    taken = run_cli(
        "sessions", "fork", "s1", "--url", url, "--app", APP, "--user", "ann", "--new-id", "s1b"
    )
    assert taken.returncode == 1
    assert "already exists" in taken.stderr
    unknown = run_cli(
        "sessions", "fork", "s1", "--url", url, "--app", APP, "--user", "ann", "--at-event", "x"
    )
    assert unknown.returncode == 1
    assert "is not in session" in unknown.stderr


def test_fork_copies_the_session_artifacts_of_the_default_store(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    _prepare(url, ("s1", "e-one"))

    async def upload() -> None:
        async with DatabaseArtifactService(url) as artifacts:
            part = types.Part(text="uploaded")
            await artifacts.save_artifact(
                app_name=APP, user_id="ann", session_id="s1", filename="a.txt", artifact=part
            )

    asyncio.run(upload())
    forked = run_cli(
        "sessions", "fork", "s1", "--url", url, "--app", APP, "--user", "ann", "--new-id", "s1b"
    )
    assert forked.returncode == 0, forked.stderr

    async def load() -> str | None:
        async with DatabaseArtifactService(url) as artifacts:
            part = await artifacts.load_artifact(
                app_name=APP, user_id="ann", session_id="s1b", filename="a.txt"
            )
            return None if part is None else part.text

    assert asyncio.run(load()) == "uploaded"


def test_an_invocation_held_by_a_dead_holders_lease_is_listed_and_waited_for(
    tmp_path: Path,
) -> None:
    # What a chat killed mid-tool leaves: its claim, never released, holds the session (and
    # its open invocation) until the lease runs out. In-process (CliRunner): the lease is short.
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    lease = 6.0

    async def kill_mid_tool() -> None:
        async with session_service_from_url(url) as service:
            await leave_interrupted(service, "ann", "s1", "e-held", lease_seconds=lease)

    asyncio.run(kill_mid_tool())
    cli = CliRunner()
    listed = cli.invoke(main, ["sessions", "interrupted", "--url", url, "--app", APP, "--json"])
    assert listed.exit_code == 0, listed.output
    [item] = json.loads(listed.stdout)
    assert (item["invocationId"], item["status"]) == ("e-held", "running")
    assert 0 < item["heldFor"] <= lease
    table = cli.invoke(main, ["sessions", "interrupted", "--url", url, "--app", APP])
    assert "held: lease frees in" in table.stdout
    assert "its process died" in table.stdout

    at_once = cli.invoke(main, ["resume", "--agent", AGENT, "--url", url, "--wait", "0"])
    assert at_once.exit_code == 1
    assert "e-held (session s1): still held by a turn's lease" in at_once.stderr
    assert "run resume again" in at_once.stderr

    waited = cli.invoke(main, ["resume", "--agent", AGENT, "--url", url, "--wait", "60"])
    assert waited.exit_code == 0, waited.output
    assert "waiting for e-held (session s1)" in waited.stderr
    assert waited.stdout.strip() == "e-held (session s1): resumed"
    assert _final(url, "s1") == "calc total=322"


def test_resume_says_when_there_is_nothing_to_resume(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"
    result = CliRunner().invoke(main, ["resume", "--agent", AGENT, "--url", url, "--user", "ann"])
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    assert "nothing to resume: no interrupted invocation of user 'ann' in app 'calc'" in (
        result.stderr
    )
