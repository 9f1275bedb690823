"""``adk-runtime sessions list|export|import`` as a user sees them: ids, JSON, progress."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from adk_runtime.cli import main
from adk_runtime.sessions import session_service_from_url
from adk_runtime.testing import text_event
from tests.cli.terminal import Terminal
from tests.serving import cli_env, run_cli

pytestmark = pytest.mark.sqlite

APP = "notes"
USER = "someone-with-a-rather-long-user-id"


def _store(tmp_path: Path, sessions: int) -> tuple[str, list[str]]:
    """A SQLite file holding ``sessions`` sessions of APP (uuid ids); their ids."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'store.db'}"

    async def fill() -> list[str]:
        async with session_service_from_url(url) as service:
            return [
                (await service.create_session(app_name=APP, user_id=USER, state={"n": i})).id
                for i in range(sessions)
            ]

    return url, asyncio.run(fill())


def test_list_never_cuts_ids_in_80_columns(tmp_path: Path) -> None:
    url, ids = _store(tmp_path, 3)
    result = run_cli("sessions", "list", "--url", url, "--app", APP, env=cli_env(COLUMNS="80"))
    assert result.returncode == 0, result.stderr
    assert max(len(line) for line in result.stdout.splitlines()) <= 80
    for session_id in ids:
        assert session_id in result.stdout  # whole, so it can be pasted into show/delete
    shown = run_cli(
        "sessions", "show", ids[0], "--url", url, "--app", APP, "--user", USER, "--json"
    )
    assert shown.returncode == 0, shown.stderr


def test_list_json(tmp_path: Path) -> None:
    url, ids = _store(tmp_path, 3)
    first = run_cli("sessions", "list", "--url", url, "--app", APP, "--page-size", "2", "--json")
    assert first.returncode == 0, first.stderr
    page = json.loads(first.stdout)
    assert [s["userId"] for s in page["sessions"]] == [USER, USER]
    assert page["nextPageToken"]
    rest = run_cli(
        "sessions", "list", "--url", url, "--app", APP, "--json",
        "--page-token", page["nextPageToken"],
    )  # fmt: skip
    page2 = json.loads(rest.stdout)
    assert page2["nextPageToken"] is None
    listed = [s["id"] for s in page["sessions"] + page2["sessions"]]
    assert sorted(listed) == sorted(ids)
    assert {s["state"]["n"] for s in page["sessions"] + page2["sessions"]} == {0, 1, 2}


def test_exporting_an_unknown_app_fails_and_writes_no_file(tmp_path: Path) -> None:
    url, _ = _store(tmp_path, 1)
    out = tmp_path / "out.jsonl"
    result = run_cli("sessions", "export", "--url", url, "--app", "no_such_app", "-o", str(out))
    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "No sessions in app(s) 'no_such_app'" in result.stderr
    assert not out.exists()
    mixed = run_cli(
        "sessions", "export", "--url", url, "--app", APP, "--app", "nope", "-o", str(out)
    )
    assert mixed.returncode == 1
    assert "'nope'" in mixed.stderr
    assert not out.exists()


def test_export_and_import_show_progress_on_a_terminal_only(tmp_path: Path) -> None:
    url, _ = _store(tmp_path, 300)
    out = tmp_path / "out.jsonl"
    terminal = Terminal("sessions", "export", "--url", url, "--app", APP, "-o", str(out))
    try:
        assert terminal.wait(60) == 0, terminal.output
    finally:
        terminal.close()
    assert "/300 sessions" in terminal.text  # done/total
    assert "exported 300 session(s)" in terminal.text

    target = f"sqlite+aiosqlite:///{tmp_path / 'target.db'}"
    terminal = Terminal("sessions", "import", str(out), "--url", target)
    try:
        assert terminal.wait(60) == 0, terminal.output
    finally:
        terminal.close()
    assert "/300 records" in terminal.text
    assert "imported 300 session(s)" in terminal.text

    piped = run_cli("sessions", "export", "--url", url, "--app", APP, "-o", str(out))
    assert piped.returncode == 0, piped.stderr
    assert piped.stderr.strip() == (
        "exported 300 session(s), 0 event(s), 0 app state(s), 0 user state(s)"
    )  # no bar, no control characters in a log


def test_prune_lists_with_dry_run_then_deletes_idle_sessions(tmp_path: Path) -> None:
    url, ids = _store(tmp_path, 3)
    time.sleep(2.5)  # all three are now idle for longer than 2 s
    args = ["sessions", "prune", "--url", url, "--app", APP, "--idle-longer-than", "2s"]
    dry = run_cli(*args, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "would delete 3 session(s)" in dry.stdout
    assert all(session_id in dry.stdout for session_id in ids)

    async def touch() -> None:  # one conversation comes back: it is not idle any more
        async with session_service_from_url(url) as service:
            session = await service.get_session(app_name=APP, user_id=USER, session_id=ids[0])
            assert session is not None
            await service.append_event(session, text_event("back"))

    asyncio.run(touch())
    # In process, right after the touch (a new interpreter can take longer than 2 s to start).
    done = CliRunner().invoke(main, [*args, "--yes"])
    assert done.exit_code == 0, done.output
    assert "deleted 2 session(s)" in done.output
    left = run_cli("sessions", "list", "--url", url, "--app", APP, "--json")
    assert [s["id"] for s in json.loads(left.stdout)["sessions"]] == [ids[0]]


def test_prune_refuses_a_malformed_duration_in_one_line(tmp_path: Path) -> None:
    url, ids = _store(tmp_path, 1)
    result = run_cli(
        "sessions", "prune", "--url", url, "--app", APP, "--idle-longer-than", "soon", "--yes"
    )
    assert result.returncode != 0
    assert "'soon' is not a duration" in result.stderr
    assert "Traceback" not in result.stderr
    left = run_cli("sessions", "list", "--url", url, "--app", APP, "--json")
    assert [s["id"] for s in json.loads(left.stdout)["sessions"]] == ids


@pytest.mark.parametrize("idle", ["99999999w", "1" + "0" * 15])
def test_prune_with_an_astronomical_idle_time_finds_nothing(tmp_path: Path, idle: str) -> None:
    # Issue 48 defect 9: a traceback ("year ... out of range") on SQL.
    url, ids = _store(tmp_path, 1)
    result = CliRunner().invoke(
        main, ["sessions", "prune", "--url", url, "--app", APP, "--idle-longer-than", idle, "--yes"]
    )
    assert result.exit_code == 0, result.output
    assert "deleted 0 session(s)" in result.output
    left = run_cli("sessions", "list", "--url", url, "--app", APP, "--json")
    assert [s["id"] for s in json.loads(left.stdout)["sessions"]] == ids
