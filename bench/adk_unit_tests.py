"""Run google-adk's own unit tests against adk_runtime, ported by import rewriting only.

Usage::

    python -m bench.adk_unit_tests TESTS_DIR [--target adk_runtime|google.adk] [--python PY]
        [--json OUT] [--compare BASELINE.json] [-k EXPR] [--areas sessions runners ...]

``TESTS_DIR`` is google-adk's ``tests/unittests`` directory (or the ``tests`` directory above
it) from a checkout of its repository; google-adk's tests are never part of this repository.
The tree is copied into a temporary directory; with ``--target adk_runtime`` every
``google.adk`` in the copied Python files becomes ``adk_runtime`` (imports and patch targets:
nothing else is changed). pytest then runs the test files of the chosen areas with ``PY``
(default: this interpreter) and the results are counted per file from pytest's JUnit report.

Run it once with google-adk's own environment and ``--target google.adk`` (the baseline),
once with this project's and ``--target adk_runtime --compare baseline.json``: the comparison
lists, per file, how many tests pass on each and which tests pass on google-adk only;
``--explain GAPS.json`` adds why each of those fails here (``bench/adk_gaps.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_AREAS = (
    "sessions",
    "runners",
    "agents",
    "flows/llm_flows",
    "tools",
    "artifacts",
    "test_runners.py",
)
_GOOGLE_ADK = re.compile(r"\bgoogle\.adk\b")
# Modules google-adk moved between the release of the test tree at hand and the pinned
# release: the tests' imports follow the move (``--move OLD=NEW`` adds one).
DEFAULT_MOVES = ("google.adk.flows.llm_flows._fencing=google.adk.flows.llm_flows.context._fencing",)


def _unittests_dir(path: Path) -> Path:
    for candidate in (path, path / "unittests", path / "tests" / "unittests"):
        if (candidate / "conftest.py").is_file() and (candidate / "sessions").is_dir():
            return candidate
    raise SystemExit(f"{path} is not google-adk's tests/unittests directory")


def _copy_tree(source: Path, target: Path, rewrite: bool, moves: list[str]) -> None:
    """Copy the test tree; in ``.py`` files apply the moves, then (``rewrite``) replace
    ``google.adk`` by ``adk_runtime``."""
    pairs = [move.split("=", 1) for move in moves]
    for path in source.rglob("*"):
        if "__pycache__" in path.parts or not path.is_file():
            continue
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".py":
            text = path.read_text(encoding="utf-8")
            for old, new in pairs:
                text = re.sub(rf"\b{re.escape(old)}\b", new, text)
            if rewrite:
                text = _GOOGLE_ADK.sub("adk_runtime", text)
            destination.write_text(text, encoding="utf-8")
        else:
            shutil.copyfile(path, destination)


def _test_files(root: Path, areas: list[str]) -> list[str]:
    """The top-level ``test_*.py`` files of each area (a file area is taken as it is)."""
    files: list[str] = []
    for area in areas:
        where = root / area
        if where.is_file():
            files.append(area)
        else:
            files += sorted(str(p.relative_to(root)) for p in where.glob("test_*.py"))
    return files


def _run_pytest(
    python: str, root: Path, files: list[str], junit: Path, keyword: str, plugins: list[str]
) -> None:
    command = [
        python,
        "-m",
        "pytest",
        *(f"tests/unittests/{file}" for file in files),
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "asyncio_mode=auto",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
        "-o",
        "addopts=",
        f"--junitxml={junit}",
        "--timeout=30",
        "--continue-on-collection-errors",
        "--tb=line",
    ]
    for plugin in plugins:
        command += ["-p", plugin]
    if keyword:
        command += ["-k", keyword]
    top = root.parent.parent
    env = {**os.environ, "PYTHONPATH": str(top)}
    subprocess.run(command, cwd=top, env=env, check=False)


@dataclass
class _Report:
    results: dict[str, dict[str, str]]
    """``{file: {test id: "passed" | "failed" | "error" | "skipped"}}``"""
    messages: dict[str, str] = field(default_factory=dict)
    """``{test id: the failure's message}`` for the tests that failed or errored"""
    collection_errors: dict[str, str] = field(default_factory=dict)
    """``{file: the error that kept it from loading}``"""


def _results(junit: Path, files: list[str]) -> _Report:
    """Each test's outcome, and each failure's message, from the JUnit report."""
    report = _Report({file: {} for file in files})
    for case in ET.parse(junit).getroot().iter("testcase"):
        file = _file_of(case.get("classname", ""), case.get("name", ""), files)
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = "failed" if child.tag == "failure" else child.tag
            if child.tag in ("failure", "error"):
                message = child.get("message") or ""
                if message.startswith("collection failure"):
                    # The import error is in the report's text, on its ``E`` lines.
                    lines = (child.text or "").splitlines()
                    report.collection_errors[file] = "\n".join(
                        line[1:].strip() for line in lines if line.startswith("E ")
                    )
                report.messages[_test_id(case)] = message
        report.results.setdefault(file, {})[_test_id(case)] = outcome
    return report


def _test_id(case: ET.Element) -> str:
    """The test's id as on google-adk: a parametrized id can carry a rewritten import path,
    and the same test must compare across targets."""
    return f"{case.get('classname', '')}::{case.get('name', '')}".replace(
        "adk_runtime", "google.adk"
    )


def _file_of(classname: str, name: str, files: list[str]) -> str:
    """The test file of a JUnit case (a collection error has only the module, in ``name``)."""
    dotted = (classname or name).replace(".", "/").removeprefix("tests/unittests/")
    for file in files:
        stem = file.removesuffix(".py")
        if dotted == stem or dotted.startswith(stem + "/"):
            return file
    return classname or name


def _summary(results: dict[str, dict[str, str]]) -> dict[str, dict[str, int]]:
    summary: dict[str, dict[str, int]] = {}
    for file, tests in results.items():
        counts: dict[str, int] = defaultdict(int)
        for outcome in tests.values():
            counts[outcome] += 1
        summary[file] = dict(counts)
    return summary


def _print_comparison(ours: dict[str, dict[str, str]], base: dict[str, dict[str, str]]) -> None:
    total_base = total_ours = 0
    print(f"{'file':<60} {'google-adk':>10} {'ours':>6}")
    for file in sorted(ours):  # the files of this run (--areas may pick a few)
        passed_base = {t for t, o in base.get(file, {}).items() if o == "passed"}
        passed_ours = {t for t, o in ours.get(file, {}).items() if o == "passed"}
        total_base += len(passed_base)
        total_ours += len(passed_ours & passed_base)
        print(f"{file:<60} {len(passed_base):>10} {len(passed_ours & passed_base):>6}")
    print(
        f"{'total (ours: of the tests passing on google-adk)':<60} {total_base:>10} {total_ours:>6}"
    )


def _explain(report: _Report, base: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """``{test id: {"file", "category", "detail"}}`` for each test passing on google-adk only."""
    from bench.adk_gaps import explain  # reads tests/parity/omissions.py: run from the repo

    gaps: dict[str, dict[str, str]] = {}
    for file, tests in sorted(base.items()):
        if file not in report.results:  # not in this run's areas
            continue
        ours = report.results[file]
        for test, outcome in sorted(tests.items()):
            if outcome != "passed" or ours.get(test) == "passed":
                continue
            ran = test in ours
            if test in report.messages:
                message = report.messages[test]
            elif file in report.collection_errors:
                message = report.collection_errors[file]
            elif ran:
                message = f"{ours[test]} here"
            else:
                message = "not collected here"
            gap = explain(file, test, message, ran)
            gaps[test] = {
                "file": file,
                "category": gap.category,
                "detail": gap.detail,
                "ran": "yes" if ran else "no",
            }
    return gaps


def _print_gaps(gaps: dict[str, dict[str, str]], files: list[str]) -> None:
    from bench.adk_gaps import CATEGORIES, stale

    counts = Counter(gap["category"] for gap in gaps.values())
    print(f"\n{'why a test passing on google-adk does not pass here':<60} {'tests':>6}")
    for category, meaning in CATEGORIES.items():
        print(f"{category:<18} {meaning[:41]:<41} {counts.get(category, 0):>6}")
    print(f"{'total':<60} {len(gaps):>6}")
    unexplained = [(t, g) for t, g in gaps.items() if g["category"] == "unexplained"]
    for test, gap in unexplained:
        print(f"  unexplained: {test}: {gap['detail']}")
    for key in stale(gaps, set(files)):
        print(f"  stale (passes here now, or is gone): bench/adk_gaps.py REVIEWED[{key!r}]")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.adk_unit_tests")
    parser.add_argument("tests_dir", type=Path, help="google-adk's tests/unittests directory")
    parser.add_argument("--target", choices=("adk_runtime", "google.adk"), default="adk_runtime")
    parser.add_argument("--python", default=sys.executable, help="interpreter that runs pytest")
    parser.add_argument("--areas", nargs="*", default=list(DEFAULT_AREAS))
    parser.add_argument("--json", type=Path, help="write the per-test results here")
    parser.add_argument("--compare", type=Path, help="a --json file of the other target")
    parser.add_argument("--move", action="append", default=list(DEFAULT_MOVES))
    parser.add_argument("--keep", type=Path, help="write the rewritten tree here (kept)")
    parser.add_argument("-k", dest="keyword", default="", help="pytest -k expression")
    parser.add_argument(
        "--stub-private",
        action="store_true",
        help="a private name of google-adk that adk_runtime lacks imports as a placeholder that"
        " fails when used (bench/_private_stubs.py), so the rest of its file runs",
    )
    parser.add_argument(
        "--explain",
        type=Path,
        help="with --compare: sort each test passing on google-adk only by why it fails here"
        " (bench/adk_gaps.py), print the counts and write the per-test reasons here",
    )
    args = parser.parse_args(argv)
    source = _unittests_dir(args.tests_dir.resolve())
    with tempfile.TemporaryDirectory(prefix="adk-unit-") as scratch:
        tmp = str(args.keep.resolve()) if args.keep else scratch
        root = Path(tmp) / "tests" / "unittests"  # the tests import ``tests.unittests``
        _copy_tree(source, root, args.target == "adk_runtime", args.move)
        (root.parent / "__init__.py").touch()
        files = _test_files(root, args.areas)
        junit = Path(tmp) / "junit.xml"
        plugins: list[str] = []
        if args.stub_private and args.target == "adk_runtime":
            shutil.copyfile(Path(__file__).with_name("_private_stubs.py"), root / "_stubs.py")
            plugins.append("tests.unittests._stubs")
        _run_pytest(args.python, root, files, junit, args.keyword, plugins)
        report = _results(junit, files)
    results = report.results
    print(json.dumps(_summary(results), indent=1))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True), encoding="utf-8")
    if args.compare:
        base = json.loads(args.compare.read_text(encoding="utf-8"))
        _print_comparison(results, base)
        if args.explain:
            gaps = _explain(report, base)
            _print_gaps(gaps, files)
            args.explain.write_text(json.dumps(gaps, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
