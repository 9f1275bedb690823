"""Every code example in README.md runs as written.

- Each ```python block runs in a fresh interpreter, in an empty directory.
- The ```bash block marked ``<!-- readme-test: curl … -->`` runs against a real
  ``adk-runtime serve`` of the demo agent (its ``BASE=`` line pointed at that server): every
  curl call must succeed, so every request body shown is one the server accepts.
- A block that cannot run as written is preceded by ``<!-- readme-test: skip <reason> -->``
  and reported as skipped with that reason; ``<!-- readme-test: postgres -->`` or ``redis``
  runs it with that marker (against the test servers it names).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.serving import ROOT, cli_env, running_server

README = ROOT / "README.md"
_BLOCK = re.compile(
    r"(?:^<!-- readme-test: (?P<directive>[^>]*?) -->\n)?"
    r"^(?P<indent> *)```(?P<lang>\w*)\n(?P<code>.*?)^(?P=indent)```$",
    re.S | re.M,
)


@dataclass(frozen=True)
class Snippet:
    """One fenced block of the README."""

    line: int
    lang: str
    code: str
    directive: str


def _snippets(text: str | None = None) -> list[Snippet]:
    text = README.read_text(encoding="utf-8") if text is None else text
    return [
        Snippet(
            line=text.count("\n", 0, match.start("indent")) + 1,
            lang=match["lang"],
            code=match["code"],
            directive=(match["directive"] or "").strip(),
        )
        for match in _BLOCK.finditer(text)
    ]


def _python_params(text: str | None = None) -> list[object]:
    params: list[object] = []
    for snippet in _snippets(text):
        if snippet.lang != "python":
            continue
        kind, _, reason = snippet.directive.partition(" ")
        marks: list[pytest.MarkDecorator] = []
        if kind == "skip":
            marks.append(pytest.mark.skip(reason=f"README.md:{snippet.line}: {reason}"))
        elif kind in ("postgres", "redis"):
            marks.append(getattr(pytest.mark, kind))
        params.append(pytest.param(snippet, id=f"line-{snippet.line}", marks=marks))
    return params


def test_the_readme_has_python_examples() -> None:
    assert len(_python_params()) >= 2


def test_a_skipped_example_says_why() -> None:
    text = (
        "x\n<!-- readme-test: skip needs a Gemini key -->\n```python\nimport nothing\n```\n"
        "  ```bash\n  echo\n  ```\n<!-- readme-test: redis -->\n```python\npass\n```\n"
    )
    skipped, on_redis = _python_params(text)
    assert isinstance(skipped, type(on_redis))
    marks = {m.name: m for m in getattr(skipped, "marks", ())}
    assert marks["skip"].kwargs["reason"] == "README.md:3: needs a Gemini key"
    assert [m.name for m in getattr(on_redis, "marks", ())] == ["redis"]


@pytest.mark.sqlite
@pytest.mark.parametrize("snippet", _python_params())
def test_python_example_runs_as_written(snippet: Snippet, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", snippet.code],
        cwd=tmp_path,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, f"README.md:{snippet.line}\n{result.stderr}"


@pytest.mark.sqlite
def test_curl_examples_are_accepted_by_a_real_server(tmp_path: Path) -> None:
    (block,) = [s for s in _snippets() if s.directive.startswith("curl")]
    assert "BASE=http://127.0.0.1:8000\n" in block.code
    db = f"sqlite+aiosqlite:///{tmp_path / 'demo.db'}"
    with running_server(
        "--agent", "adk_runtime.demo:root_agent", "--session-url", db, "--memory-url", db,
        "--log-level", "warning",
    ) as base:  # fmt: skip
        script = block.code.replace("BASE=http://127.0.0.1:8000", f"BASE={base}")
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", script],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert result.returncode == 0, result.stderr + result.stdout
    out = result.stdout
    routes = [line for line in block.code.splitlines() if line.startswith("curl ")]
    assert len(routes) >= 18  # every route of the table
    assert "Noted. I remember 1 thing(s)." in out  # /run ran the tool
    assert "data: " in out  # /run_sse streamed events
    assert "You asked me to remember: the meeting is at 3pm" in out
    assert '"inlineData"' in out  # the artifact came back
