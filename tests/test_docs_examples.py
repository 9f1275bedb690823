"""Every code example in README.md and docs/**/*.md runs as written.

- Each ```python block runs in a fresh interpreter (``python -c``) in an empty directory.
- Each ```bash block runs with ``bash -euo pipefail`` in an empty directory, the venv's
  ``bin`` first on ``PATH`` (so ``adk-runtime`` and ``python`` are this checkout's).
- Both time out after 120 s; the environment is ``tests.serving.cli_env()``.

One directive line right above a block's fence changes how it runs:

- ``<!-- docs-test: fragment <reason> -->``: not run; reported as skipped with that reason.
- ``<!-- docs-test: postgres -->`` / ``<!-- docs-test: redis -->``: run against the test
  servers, with that marker. The block writes the documented URLs
  (``postgresql+asyncpg://postgres@127.0.0.1:5432/adk``, ``redis://127.0.0.1:6379/0``); the
  runner puts a fresh database (created, then dropped) or a fresh key prefix (its keys deleted
  afterwards) in their place.
- ``<!-- docs-test: spanner -->``: run against the Cloud Spanner emulator the tests start
  (``tests/spanner_support.py``), with the ``spanner`` marker. The block writes the documented
  URL ``spanner:///projects/adk/instances/adk/databases/adk`` (with no ``emulator_host``); the
  runner puts a fresh database on the emulator in its place (dropped afterwards) and sets
  ``$SPANNER_EMULATOR_HOST`` for the block.
- ``<!-- docs-test: own <test path> <reason> -->``: run by that test, which must exist and
  name the doc file; the generic runner skips it.
- ``<!-- docs-test: curl <comment> -->``: a bash block of curl calls, run against a real
  ``adk-runtime serve`` of the demo agent (its ``BASE=`` line pointed at that server): every
  call must succeed, so every request body shown is one the server accepts.

Skip reasons and test ids name the file and line of the block's fence
(``docs/how-to/redis.md:42``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlencode

import pytest

from tests.serving import ROOT, cli_env, running_server
from tests.spanner_support import Emulator, fresh_database
from tests.stores import REDIS_URL, fresh_store

TIMEOUT_SECONDS = 120
RUN_LANGS = ("python", "bash")
KINDS = ("fragment", "postgres", "redis", "spanner", "own", "curl")

DOCUMENTED_POSTGRES = re.compile(
    r"(?P<scheme>postgresql(?:\+asyncpg)?)://postgres@127\.0\.0\.1:5432/adk(?![\w-])"
)
DOCUMENTED_REDIS = re.compile(r"redis://127\.0\.0\.1:6379/0(?:\?(?P<query>[^\s'\"`]*))?")
DOCUMENTED_SPANNER = re.compile(r"spanner:///projects/adk/instances/adk/databases/adk(?![\w-])")

_DIRECTIVE = re.compile(r"^\s*<!-- docs-test: (?P<body>.*?) -->\s*$")
_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


@dataclass(frozen=True)
class Directive:
    """One ``<!-- docs-test: … -->`` line."""

    path: str
    line: int
    body: str

    @property
    def kind(self) -> str:
        return self.body.split(" ", 1)[0]

    @property
    def rest(self) -> str:
        return self.body.partition(" ")[2].strip()


@dataclass(frozen=True)
class Block:
    """One fenced code block of a Markdown file (``line``: its opening fence, 1-based)."""

    path: str
    line: int
    lang: str
    code: str
    directive: Directive | None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"

    @property
    def kind(self) -> str:
        return self.directive.kind if self.directive else ""


@dataclass(frozen=True)
class Page:
    """A Markdown file read into its blocks, its directives and its stray directive-like lines."""

    path: str
    blocks: list[Block]
    directives: list[Directive]
    malformed: list[str]


def parse(path: str, text: str) -> Page:
    """Split ``text`` (the Markdown file ``path``) into fenced blocks and directives.

    A directive belongs to the block whose opening fence is on the next line; lines inside a
    fence are code, never directives.
    """
    lines = text.splitlines()
    blocks: list[Block] = []
    directives: list[Directive] = []
    malformed: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        directive = _DIRECTIVE.match(line)
        if directive:
            directives.append(Directive(path, index + 1, directive["body"].strip()))
            index += 1
            continue
        if re.match(r"\s*<!--\s*[\w-]*-test\b", line):
            malformed.append(f"{path}:{index + 1}: {line.strip()}")
        fence = _FENCE.match(line)
        if not fence:
            index += 1
            continue
        end = _closing_fence(lines, index + 1, fence["fence"])
        indent = len(fence["indent"])
        code = "".join(_dedent(body, indent) + "\n" for body in lines[index + 1 : end])
        before = directives[-1] if directives else None
        attached = before if before is not None and before.line == index else None
        info = fence["info"].strip()
        lang = info.split()[0].strip("{}.") if info else ""
        blocks.append(Block(path, index + 1, lang, code, attached))
        index = end + 1
    return Page(path, blocks, directives, malformed)


def _closing_fence(lines: list[str], start: int, fence: str) -> int:
    """The index of the line closing ``fence`` (the end of the file if none does)."""
    for index in range(start, len(lines)):
        stripped = lines[index].strip()
        if len(stripped) >= len(fence) and stripped == fence[0] * len(stripped):
            return index
    return len(lines)


def _dedent(line: str, indent: int) -> str:
    return line[min(indent, len(line) - len(line.lstrip(" "))) :]


def doc_files() -> list[Path]:
    """README.md and every Markdown file under docs/."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def pages() -> list[Page]:
    return [
        parse(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8"))
        for path in doc_files()
    ]


def all_blocks() -> list[Block]:
    return [block for page in pages() for block in page.blocks]


def params(lang: str, blocks: list[Block] | None = None) -> list[object]:
    """A ``pytest.param`` per ``lang`` block: id ``file:line``, marks from its directive."""
    result: list[object] = []
    for block in all_blocks() if blocks is None else blocks:
        if block.lang != lang:
            continue
        result.append(pytest.param(block, id=block.where, marks=_marks(block)))
    return result


def _marks(block: Block) -> list[pytest.MarkDecorator]:
    directive = block.directive
    if directive is None:
        return [pytest.mark.sqlite]
    kind, rest = directive.kind, directive.rest
    if kind == "fragment":
        return [pytest.mark.skip(reason=f"{block.where}: {rest}")]
    if kind == "own":
        test, _, reason = rest.partition(" ")
        return [pytest.mark.skip(reason=f"{block.where}: run by {test}: {reason.strip()}")]
    if kind == "curl":
        reason = "run against a real server by test_curl_examples_are_accepted_by_a_real_server"
        return [pytest.mark.skip(reason=f"{block.where}: {reason}")]
    if kind in ("postgres", "redis", "spanner"):
        return [getattr(pytest.mark, kind)]
    return []  # an unknown directive: the block runs and test_directives_are_known fails


# --- the runner ------------------------------------------------------------------------


def block_env(emulator: Emulator | None = None) -> dict[str, str]:
    """``cli_env()`` with the venv's ``bin`` first on ``PATH`` (and ``emulator``'s host)."""
    env = cli_env()
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env.pop("SPANNER_EMULATOR_HOST", None)
    if emulator is not None:
        env["SPANNER_EMULATOR_HOST"] = emulator.host
    return env


def command(block: Block) -> list[str]:
    if block.lang == "python":
        return [sys.executable, "-c", block.code]
    return ["bash", "-euo", "pipefail", "-c", block.code]


def with_postgres(code: str, url: str) -> str:
    """``code`` with the documented PostgreSQL URL pointing at database ``url`` instead."""
    rest = url.split("://", 1)[1]
    return DOCUMENTED_POSTGRES.sub(lambda m: f"{m['scheme']}://{rest}", code)


def with_redis(code: str, url: str, prefix: str) -> str:
    """``code`` with the documented Redis URL on server ``url``, its keys under ``prefix``.

    A ``key_prefix`` the URL sets is kept, after ``prefix``.
    """
    base = url.split("?", 1)[0]

    def replace(match: re.Match[str]) -> str:
        query = dict(parse_qsl(match["query"] or "", keep_blank_values=True))
        query["key_prefix"] = prefix + query.get("key_prefix", "")
        return f"{base}?{urlencode(query, safe=':')}"

    return DOCUMENTED_REDIS.sub(replace, code)


def with_spanner(code: str, database: str) -> str:
    """``code`` with the documented Spanner URL naming ``database`` (``projects/…``) instead."""
    return DOCUMENTED_SPANNER.sub(f"spanner:///{database}", code)


@contextlib.asynccontextmanager
async def prepared(
    block: Block, tmp_path: Path, emulator: Emulator | None = None
) -> AsyncIterator[str]:
    """The block's code, pointed at a fresh database or key prefix for the duration."""
    if block.kind == "spanner":
        assert emulator is not None
        async with fresh_database(emulator) as database:
            yield with_spanner(block.code, database)
    elif block.kind == "postgres":
        async with fresh_store("postgres", tmp_path) as store:
            yield with_postgres(block.code, store.url)
    elif block.kind == "redis":
        async with fresh_store("redis", tmp_path) as store:
            yield with_redis(block.code, REDIS_URL, store.kwargs["key_prefix"])
    else:
        yield block.code


async def run_block(block: Block, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    work = tmp_path / "work"
    work.mkdir()
    # The emulator only for the blocks that use it (the fixture starts it once per process).
    emulator = request.getfixturevalue("spanner_emulator") if block.kind == "spanner" else None
    async with prepared(block, tmp_path, emulator) as code:
        runnable = Block(block.path, block.line, block.lang, code, block.directive)
        try:
            result = await asyncio.to_thread(
                subprocess.run,
                command(runnable),
                cwd=work,
                env=block_env(emulator),
                capture_output=True,
                text=True,
                timeout=TIMEOUT_SECONDS,
                check=False,
            )
        except subprocess.TimeoutExpired:
            pytest.fail(f"{block.where}: still running after {TIMEOUT_SECONDS} s")
    assert result.returncode == 0, (
        f"{block.where} exited with {result.returncode}\n"
        f"--- stderr\n{result.stderr[-4000:]}\n--- stdout\n{result.stdout[-2000:]}"
    )


@pytest.mark.parametrize("block", params("python"))
async def test_python_example_runs_as_written(
    block: Block, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    await run_block(block, tmp_path, request)


@pytest.mark.parametrize("block", params("bash"))
async def test_bash_example_runs_as_written(
    block: Block, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    await run_block(block, tmp_path, request)


def curl_blocks() -> list[Block]:
    return [block for block in all_blocks() if block.kind == "curl"]


@pytest.mark.sqlite
@pytest.mark.parametrize("block", [pytest.param(b, id=b.where) for b in curl_blocks()])
def test_curl_examples_are_accepted_by_a_real_server(block: Block, tmp_path: Path) -> None:
    assert block.lang == "bash", block.where
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
            timeout=TIMEOUT_SECONDS,
            check=False,
        )
    assert result.returncode == 0, f"{block.where}\n{result.stderr}{result.stdout}"
    out = result.stdout
    routes = [line for line in block.code.splitlines() if line.startswith("curl ")]
    assert len(routes) >= 18  # every route of the table
    assert "Noted. I remember 1 thing(s)." in out  # /run ran the tool
    assert "data: " in out  # /run_sse streamed events
    assert "You asked me to remember: the meeting is at 3pm" in out
    assert '"inlineData"' in out  # the artifact came back


# --- the docs' directives --------------------------------------------------------------


DOCUMENTED = {
    "postgres": DOCUMENTED_POSTGRES,
    "redis": DOCUMENTED_REDIS,
    "spanner": DOCUMENTED_SPANNER,
}
"""The URL a block of each server kind must write, for the runner to replace."""


def all_directives() -> list[Directive]:
    return [directive for page in pages() for directive in page.directives]


def directive_problems(page: Page) -> list[str]:
    """What is wrong with the directives of ``page`` (empty: nothing)."""
    problems = list(page.malformed)
    by_line = {block.directive.line: block for block in page.blocks if block.directive}
    for directive in page.directives:
        where = f"{directive.path}:{directive.line}"
        block = by_line.get(directive.line)
        if directive.kind not in KINDS:
            problems.append(f"{where}: unknown directive {directive.kind!r} (one of {KINDS})")
        if block is None:
            problems.append(f"{where}: dangling: the next line must open a code block")
        elif block.lang not in RUN_LANGS:
            problems.append(f"{where}: the block below is {block.lang or 'plain'!r}, not run")
        if directive.kind == "fragment" and not directive.rest:
            problems.append(f"{where}: a fragment says why it cannot run")
        if directive.kind == "own" and len(directive.rest.split(" ", 1)) < 2:
            problems.append(f"{where}: own takes a test path and a reason")
        if directive.kind == "curl" and block is not None and block.lang != "bash":
            problems.append(f"{where}: curl applies to a bash block")
        documented = DOCUMENTED.get(directive.kind)
        if documented is not None and block is not None and not documented.search(block.code):
            problems.append(f"{where}: the block does not use the documented URL")
    return problems


def test_the_docs_have_runnable_examples() -> None:
    blocks = all_blocks()
    assert len([b for b in blocks if b.lang == "python" and b.directive is None]) >= 2
    assert curl_blocks(), "a bash block marked <!-- docs-test: curl … --> (serve-http.md)"


def test_directives_are_known_complete_and_followed_by_a_block() -> None:
    problems = [problem for page in pages() for problem in directive_problems(page)]
    assert not problems, "\n".join(problems)


def test_a_block_run_by_its_own_test_names_one_that_reads_the_doc() -> None:
    for directive in all_directives():
        if directive.kind != "own":
            continue
        test = ROOT / directive.rest.split(" ", 1)[0]
        where = f"{directive.path}:{directive.line}"
        assert test.is_file(), f"{where}: {test.relative_to(ROOT)} does not exist"
        assert directive.path in test.read_text(encoding="utf-8"), (
            f"{where}: {test.relative_to(ROOT)} does not read {directive.path}"
        )


# --- the parser and the runner's rules, on made-up pages --------------------------------

SAMPLE = """\
# Title

<!-- docs-test: fragment needs a Gemini key -->
```python
import nothing
```

!!! note
    ```bash
    echo indented
    ```

<!-- docs-test: redis -->
```python title="on Redis"
url = "redis://127.0.0.1:6379/0"
```

````markdown
<!-- docs-test: fragment inside a code block: text, not a directive -->
```python
pass
```
````

<!-- docs-test: own tests/test_x.py the dedicated test -->
```bash
true
```
"""


def test_blocks_are_found_with_their_line_language_and_directive() -> None:
    page = parse("docs/how-to/x.md", SAMPLE)
    found = [(b.where, b.lang, b.kind) for b in page.blocks]
    assert found == [
        ("docs/how-to/x.md:4", "python", "fragment"),
        ("docs/how-to/x.md:9", "bash", ""),
        ("docs/how-to/x.md:14", "python", "redis"),
        ("docs/how-to/x.md:18", "markdown", ""),
        ("docs/how-to/x.md:26", "bash", "own"),
    ]
    assert page.blocks[1].code == "echo indented\n"
    assert [d.line for d in page.directives] == [3, 13, 25]
    assert directive_problems(page) == []


def test_skip_reasons_and_ids_name_the_file_and_line() -> None:
    blocks = parse("docs/how-to/x.md", SAMPLE).blocks
    skipped, on_redis = params("python", blocks)
    assert getattr(skipped, "id", None) == "docs/how-to/x.md:4"
    (mark,) = getattr(skipped, "marks", ())
    assert mark.kwargs["reason"] == "docs/how-to/x.md:4: needs a Gemini key"
    assert [m.name for m in getattr(on_redis, "marks", ())] == ["redis"]
    (own,) = params("bash", blocks)[1:]
    (mark,) = getattr(own, "marks", ())
    reason = "docs/how-to/x.md:26: run by tests/test_x.py: the dedicated test"
    assert mark.kwargs["reason"] == reason


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("<!-- docs-test: fragment -->\n```python\npass\n```\n", "says why"),
        ("<!-- docs-test: fragment x -->\n\n```python\npass\n```\n", "dangling"),
        ("<!-- docs-test: fragment x -->\ntext\n", "dangling"),
        ("<!-- docs-test: skip x -->\n```python\npass\n```\n", "unknown directive"),
        ("<!-- readme-test: skip x -->\n```python\npass\n```\n", "readme-test"),
        ("<!-- docs-test: fragment x -->\n```yaml\na: 1\n```\n", "not run"),
        ("<!-- docs-test: own tests/x.py -->\n```python\npass\n```\n", "test path and a reason"),
        ("<!-- docs-test: postgres -->\n```python\nurl = 'sqlite://'\n```\n", "documented URL"),
        ("<!-- docs-test: spanner -->\n```bash\necho spanner:///x\n```\n", "documented URL"),
    ],
)
def test_a_bad_directive_is_reported(text: str, problem: str) -> None:
    problems = directive_problems(parse("README.md", text))
    assert any(problem in p for p in problems), problems
    assert all(p.startswith("README.md:1") for p in problems), problems


def test_the_documented_urls_point_at_a_fresh_database_and_key_prefix() -> None:
    code = (
        'a = "postgresql+asyncpg://postgres@127.0.0.1:5432/adk"\n'
        'b = "postgresql+asyncpg://postgres@127.0.0.1:5432/adk_runtime"\n'
        'c = "redis://127.0.0.1:6379/0"\n'
        "d = 'redis://127.0.0.1:6379/0?key_prefix=app:&ttl_seconds=60'\n"
    )
    on_postgres = with_postgres(code, "postgresql+asyncpg://u@h:1/fresh")
    moved = with_redis(on_postgres, "redis://h:2/3", "t:")
    assert moved == (
        'a = "postgresql+asyncpg://u@h:1/fresh"\n'
        'b = "postgresql+asyncpg://postgres@127.0.0.1:5432/adk_runtime"\n'
        'c = "redis://h:2/3?key_prefix=t:"\n'
        "d = 'redis://h:2/3?key_prefix=t:app:&ttl_seconds=60'\n"
    )


def test_the_documented_spanner_url_points_at_a_fresh_database() -> None:
    code = (
        'a = "spanner:///projects/adk/instances/adk/databases/adk"\n'
        'b = "spanner:///projects/adk/instances/adk/databases/adk?max_sessions=5"\n'
        'c = "spanner:///projects/adk/instances/adk/databases/adk_other"\n'
    )
    assert with_spanner(code, "projects/p/instances/i/databases/t1") == (
        'a = "spanner:///projects/p/instances/i/databases/t1"\n'
        'b = "spanner:///projects/p/instances/i/databases/t1?max_sessions=5"\n'
        'c = "spanner:///projects/adk/instances/adk/databases/adk_other"\n'
    )
