"""bench/adk_unit_tests.py: google-adk-style tests, imports rewritten, run and counted per file."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from bench.adk_unit_tests import main

CONFTEST = "import pytest\n"
SESSIONS_TEST = """
from google.adk.sessions.in_memory_session_service import InMemorySessionService
from google.adk.flows.llm_flows._old_home import VALUE


async def test_create_and_get():
    service = InMemorySessionService()
    session = await service.create_session(app_name="a", user_id="u")
    assert (await service.get_session(app_name="a", user_id="u", session_id=session.id))


def test_moved_module_import_is_followed():
    assert VALUE == "moved"


def test_fails():
    assert 1 == 2


import pytest


@pytest.mark.parametrize("path", ["google.adk.sessions.Session"])
def test_named_by_path(path):
    assert path.endswith(".Session")
"""
BROKEN_TEST = "from google.adk.no_such_module import thing\n\ndef test_x():\n    pass\n"


def _tree(root: Path) -> Path:
    unittests = root / "tests" / "unittests"
    (unittests / "sessions").mkdir(parents=True)
    (unittests / "artifacts").mkdir()
    (unittests / "__init__.py").touch()
    (unittests / "conftest.py").write_text(CONFTEST)
    (unittests / "sessions" / "__init__.py").touch()
    (unittests / "sessions" / "test_service.py").write_text(SESSIONS_TEST)
    (unittests / "artifacts" / "test_broken.py").write_text(BROKEN_TEST)
    (unittests / "artifacts" / "helper.py").write_text("google.adk.x = 1  # not a test\n")
    return unittests


def test_the_tree_is_rewritten_run_and_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unittests = _tree(tmp_path / "src")
    # a module google-adk moved: the tests' import follows the move, then the rewrite
    (unittests / "moved_here.py").write_text('VALUE = "moved"\n')
    out = tmp_path / "ours.json"
    keep = tmp_path / "kept"
    code = main(
        [
            str(tmp_path / "src"),
            "--areas",
            "sessions",
            "artifacts",
            "--python",
            sys.executable,
            "--json",
            str(out),
            "--keep",
            str(keep),
            "--move",
            "google.adk.flows.llm_flows._old_home=tests.unittests.moved_here",
        ]
    )
    assert code == 0
    kept_test = (keep / "tests" / "unittests" / "sessions" / "test_service.py").read_text()
    assert "from adk_runtime.sessions.in_memory_session_service import" in kept_test
    assert "from tests.unittests.moved_here import VALUE" in kept_test
    assert "google.adk" not in kept_test
    assert unittests.joinpath("sessions", "test_service.py").read_text() == SESSIONS_TEST
    results = json.loads(out.read_text())
    sessions = results["sessions/test_service.py"]
    assert sorted(sessions.values()) == ["failed", "passed", "passed", "passed"]
    # The rewritten parameter is named as on google-adk, so both targets' ids compare.
    named = [test for test in sessions if "test_named_by_path" in test]
    assert named == [
        "tests.unittests.sessions.test_service::test_named_by_path[google.adk.sessions.Session]"
    ]
    assert list(results["artifacts/test_broken.py"].values()) == ["error"]
    capsys.readouterr()


def test_a_directory_that_is_not_google_adks_tests_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="not google-adk's tests/unittests"):
        main([str(tmp_path)])


GAPS_TEST = """
import pytest
from google.adk.agents.live_request_queue import LiveRequestQueue
from google.adk.sessions import InMemorySessionService


def test_live():
    LiveRequestQueue()


async def test_wording():
    with pytest.raises(ValueError, match="words only google-adk uses"):
        await InMemorySessionService().create_session(app_name="a", user_id="bad\\x00id")


def test_unexplained():
    assert 1 == 2
"""
PRIVATE_TEST = (
    "from google.adk.sessions.in_memory_session_service import _not_here\n\n"
    "def test_private():\n    pass\n"
)


def test_each_gap_is_sorted_by_why_it_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unittests = _tree(tmp_path / "src")
    (unittests / "sessions" / "test_gaps.py").write_text(GAPS_TEST)
    (unittests / "sessions" / "test_private.py").write_text(PRIVATE_TEST)
    ids = {
        "sessions/test_gaps.py": ["test_live", "test_wording", "test_unexplained"],
        "sessions/test_private.py": ["test_private"],
    }
    base = {
        file: {f"tests.unittests.{file[:-3].replace('/', '.')}::{name}": "passed" for name in names}
        for file, names in ids.items()
    }
    (tmp_path / "base.json").write_text(json.dumps(base))
    gaps_file = tmp_path / "gaps.json"
    argv = [str(tmp_path / "src"), "--areas", "sessions", "--python", sys.executable]
    argv += ["--compare", str(tmp_path / "base.json"), "--explain", str(gaps_file)]
    assert main(argv) == 0
    gaps = json.loads(gaps_file.read_text())
    category = {test.rsplit("::", 1)[1]: gap["category"] for test, gap in gaps.items()}
    assert category == {
        "test_live": "live",
        "test_wording": "wording",
        "test_unexplained": "unexplained",
        "test_private": "private",
    }
    assert gaps["tests.unittests.sessions.test_private::test_private"]["detail"] == (
        "sessions.in_memory_session_service:_not_here"
    )
    out = capsys.readouterr().out
    assert "unexplained: tests.unittests.sessions.test_gaps::test_unexplained" in out
    assert "total" in out


def test_reviewed_failures_and_stale_reviews() -> None:
    from bench.adk_gaps import REVIEWED, explain, stale

    file, function = next(iter(REVIEWED)).split("::")
    test = f"tests.unittests.{file[:-3].replace('/', '.')}.TestX::{function}[param.with.dots]"
    assert (
        explain(file, test, "AssertionError: assert 1 == 2").category
        == REVIEWED[f"{file}::{function}"][0]
    )
    # A missing public name that the parity table does not list is left to review.
    assert (
        explain(
            "x/test_y.py", "t::test_z", "cannot import name 'Thing' from 'adk_runtime.sessions'"
        ).category
        == "unexplained"
    )
    # An omitted module (the parity table) takes the table's category.
    gap = explain(
        "x/test_y.py",
        "t::test_z",
        "No module named 'adk_runtime.memory.vertex_ai_rag_memory_service'",
    )
    assert gap.category == "google-cloud"
    # The reviewed entry's test passes now (absent from the gaps): reported as stale, but only
    # when its file was run.
    assert f"{file}::{function}" in stale({}, {file})
    assert stale({}, {"other/test_file.py"}) == []


PRIVATE_AND_PUBLIC_TEST = """
from google.adk.sessions.in_memory_session_service import InMemorySessionService, _not_here


async def test_public():
    service = InMemorySessionService()
    assert (await service.create_session(app_name="a", user_id="u")).app_name == "a"


def test_uses_the_private_name():
    _not_here()
"""


def test_stub_private_lets_the_public_tests_of_a_file_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    unittests = _tree(tmp_path / "src")
    (unittests / "sessions" / "test_mixed.py").write_text(PRIVATE_AND_PUBLIC_TEST)
    module = "tests.unittests.sessions.test_mixed"
    names = ("test_public", "test_uses_the_private_name")
    base = {"sessions/test_mixed.py": {f"{module}::{name}": "passed" for name in names}}
    (tmp_path / "base.json").write_text(json.dumps(base))
    argv = [str(tmp_path / "src"), "--areas", "sessions", "--python", sys.executable]
    argv += ["--compare", str(tmp_path / "base.json")]
    for stub, public in ((False, "error"), (True, "passed")):
        out, gaps_file = tmp_path / f"ours-{stub}.json", tmp_path / f"gaps-{stub}.json"
        extra = ["--stub-private"] if stub else []
        assert main([*argv, "--json", str(out), "--explain", str(gaps_file), *extra]) == 0
        results = json.loads(out.read_text())["sessions/test_mixed.py"]
        if stub:
            assert results[f"{module}::test_public"] == public
        else:  # the file does not load: one error for it, no test of it ran
            assert list(results.values()) == [public]
        gaps = json.loads(gaps_file.read_text())
        private = gaps[f"{module}::test_uses_the_private_name"]
        assert private["category"] == "private"
        assert private["detail"].endswith("in_memory_session_service._not_here") or private[
            "detail"
        ].endswith("in_memory_session_service:_not_here")
        assert (f"{module}::test_public" in gaps) is not stub
    capsys.readouterr()
