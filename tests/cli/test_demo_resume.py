"""`adk-runtime demo` on its embedded SQLite file: a second run resumes the first."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from adk_runtime import demo
from tests.backends import REDIS_URL, drop_redis_prefix, redis_test_prefix
from tests.serving import run_cli
from tests.sql_support import run_in_thread

pytestmark = pytest.mark.sqlite


def _final_revision(stdout: str) -> int:
    match = re.search(r"session demo: revision (\d+), (\d+) events stored", stdout)
    assert match, stdout
    assert match.group(1) == match.group(2)
    return int(match.group(1))


def test_demo_resumes_on_a_second_run(tmp_path: Path) -> None:
    first = run_cli("demo", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "New session demo" in first.stdout
    assert (tmp_path / ".adk_runtime" / "demo.db").is_file()  # created on first use
    revision = _final_revision(first.stdout)
    assert revision > 0

    second = run_cli("demo", cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    out = second.stdout
    assert f"Resumed session demo: revision {revision}" in out
    history = out[: out.index("you   > remember the demo resumed")]
    assert "Saved notes.md" in history  # earlier turns are shown
    assert '"user:notes": ["the meeting is at 3pm"]' in history  # and the state found
    assert "artifact notes.md: versions [0]" in history  # the artifact, in the same file
    assert '"user:notes": ["the meeting is at 3pm", "the demo resumed from storage"]' in out
    assert _final_revision(out) > revision


def test_demo_names_its_app_and_prints_commands_that_work(tmp_path: Path) -> None:
    first = run_cli("demo", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "of user demo in app notes" in first.stdout
    commands = [
        line.split()[1:]
        for line in first.stdout.splitlines()
        if line.startswith("  ") and "adk-runtime" in line
    ]
    assert [c[:2] for c in commands] == [
        ["sessions", "list"],
        ["sessions", "show"],
        ["serve", "--agent"],
    ]
    listed = run_cli(*commands[0], cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert "│ demo " in listed.stdout
    shown = run_cli(*commands[1], "--json", cwd=tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["appName"] == "notes"
    # `serve` with the demo's agent serves the same app name.
    assert "--agent adk_runtime.demo:root_agent" in " ".join(commands[2])
    assert demo.root_agent.name == demo.APP_NAME


@pytest.mark.redis
def test_demo_on_redis_keeps_notes_md_across_runs(tmp_path: Path) -> None:
    prefix = redis_test_prefix()
    url = f"{REDIS_URL}?key_prefix={prefix}"
    try:
        first = run_cli("demo", "--session-url", url, cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        artifacts = tmp_path / ".adk_runtime" / "artifacts"
        assert f"artifacts: {artifacts.as_uri()}" in first.stderr
        second = run_cli("demo", "--session-url", url, cwd=tmp_path)
        assert second.returncode == 0, second.stderr
        history = second.stdout[: second.stdout.index("you   > remember the demo resumed")]
        assert "artifact notes.md: versions [0]" in history  # the artifact survived the run
    finally:
        run_in_thread(drop_redis_prefix, prefix)
