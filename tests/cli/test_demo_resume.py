"""`adk-runtime demo` on its embedded SQLite file: a second run resumes the first."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.serving import run_cli

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
