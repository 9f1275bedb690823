"""Move sessions SQLite → PostgreSQL → Redis with `sessions export|import` (subprocesses);
damaged files refused on every durable store (Spanner too).

Every hop must keep every session, event (id, order, content), revision and app/user state:
the export of each target equals the export of the source, except update times.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from adk_runtime.cli import main
from adk_runtime.sessions import session_service_from_url, transfer
from tests.backends import REDIS_URL, drop_redis_prefix, redis_test_prefix
from tests.contract.test_import import APP, BAD, good_file
from tests.serving import run_cli
from tests.spanner_support import Emulator, fresh_database_sync, spanner_url
from tests.sql_support import create_database, drop_database, run_in_thread, unique_name

pytestmark = [pytest.mark.sqlite, pytest.mark.postgres, pytest.mark.redis]  # + spanner: by fixture
APPS = ("notes", "echo_app")


@pytest.fixture
def postgres_target() -> Iterator[str]:
    name = unique_name("adk_cli")
    url = run_in_thread(create_database, name)
    try:
        yield url
    finally:
        run_in_thread(drop_database, name)


@pytest.fixture
def spanner_target(spanner_emulator: Emulator) -> Iterator[str]:
    with fresh_database_sync(spanner_emulator) as database:
        yield spanner_url(spanner_emulator, database)


@pytest.fixture
def redis_target() -> Iterator[str]:
    prefix = redis_test_prefix()
    try:
        yield f"{REDIS_URL}?key_prefix={prefix}"
    finally:
        run_in_thread(drop_redis_prefix, prefix)


def _ok(*args: str, cwd: Path | None = None, stdin: str = "") -> str:
    result = run_cli(*args, cwd=cwd, stdin=stdin)
    assert result.returncode == 0, result.stderr + result.stdout
    return result.stdout + result.stderr


def _export(url: str, out: Path) -> list[dict[str, Any]]:
    _ok("sessions", "export", "--url", url, *(f"--app={a}" for a in APPS), "-o", str(out))
    lines = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        line.pop("last_update_time", None)
    head, body, end = lines[0], lines[1:-1], lines[-1]
    key = lambda o: (o["kind"], o["app_name"], o.get("user_id", ""), o.get("id", ""))  # noqa: E731
    return [head, *sorted(body, key=key), end]


def test_export_sqlite_import_postgres_then_redis(
    tmp_path: Path, postgres_target: str, redis_target: str
) -> None:
    sqlite = f"sqlite+aiosqlite:///{tmp_path / 'source.db'}"
    _ok("demo", "--session-url", sqlite, cwd=tmp_path)
    _ok("demo", "--session-url", sqlite, cwd=tmp_path)
    _ok("demo", "--session-url", sqlite, "--session", "second", cwd=tmp_path)
    for user in ("alice", "bob"):
        _ok(
            "chat", "--agent", "tests.server.agent:root_agent", "--session-url", sqlite,
            "--user", user, stdin="hello\nstream\n",
        )  # fmt: skip
    source = _export(sqlite, tmp_path / "source.jsonl")
    assert source[-1] == {
        "kind": "end", "sessions": 4, "events": source[-1]["events"], "app_states": 0,
        "user_states": 1,
    }  # fmt: skip
    assert source[-1]["events"] > 40

    _ok("db", "upgrade", "--url", postgres_target)
    out = _ok("sessions", "import", str(tmp_path / "source.jsonl"), "--url", postgres_target)
    assert "imported 4 session(s) (4 created, 0 already present)" in out
    assert _export(postgres_target, tmp_path / "pg.jsonl") == source

    again = _ok("sessions", "import", str(tmp_path / "source.jsonl"), "--url", postgres_target)
    assert "(0 created, 4 already present), 0 event(s) written" in again
    assert _export(postgres_target, tmp_path / "pg2.jsonl") == source

    _ok("sessions", "import", str(tmp_path / "pg.jsonl"), "--url", redis_target)
    assert _export(redis_target, tmp_path / "redis.jsonl") == source

    shown = _ok(
        "sessions", "show", "demo", "--url", redis_target, "--app", "notes",
        "--user", "demo", "--json",
    )  # fmt: skip
    session = json.loads(shown)
    assert session["revision"] == len(session["events"])


def _text(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line) + "\n" for line in lines)


def _bad(change: Any) -> list[dict[str, Any]]:
    lines = good_file()
    change(lines)
    return lines


# --- refused files: one `Error:` line, nothing written, the same refusal every time ---------

DAMAGED = (
    [  # (name, the file's text, a fragment of the one error line)
        (name, "\n".join(json.dumps(line) for line in _bad(change)) + "\n", message)
        for name, (change, message) in BAD.items()
    ]
    + [
        ("an empty file", "", "The file is empty"),
        (
            "a cut file",
            json.dumps(good_file()[0]) + "\n" + json.dumps(good_file()[1])[:50],
            "Line 2",
        ),
        ("no footer", "\n".join(json.dumps(line) for line in good_file()[:-1]), "incomplete"),
        ("a line after the end", _text(good_file()) + '{"kind": "end"}\n', "after the 'end' line"),
        ("a huge line", _text(good_file()[:1]) + "x" * 20_000_000 + "\n", "Line 2 is not JSON"),
        ("deep nesting", _text(good_file()[:1]) + "[" * 100_000 + "\n", "Line 2 is not JSON"),
        ("a line of an array", _text(good_file()[:1]) + "[1]\n", "Line 2 is a JSON array"),
    ]
)
DEFECTS = {  # the files of issue 48 (defects 6 and 7), tried on every durable backend
    "revision above the events", "an event id twice", "an event id of 300 characters",
    "a footer announcing fewer sessions", "an app the header does not declare",
    "app: state in a session line", "state that is a list", "an empty file",
}  # fmt: skip


def _store_state(url: str) -> Any:
    async def go() -> Any:
        async with session_service_from_url(url) as service:
            keys = sorted(await transfer.list_session_keys(service, APP))
            events = []
            for user_id, sid in keys:
                session = await service.get_session(app_name=APP, user_id=user_id, session_id=sid)
                assert session is not None
                events.append([e.id for e in session.events])
            witness = await service.get_session(app_name=APP, user_id="u", session_id="witness")
            other = await transfer.list_session_keys(service, "other_app")
            return keys, events, witness and witness.state, other

    return asyncio.run(go())


def _add_witness(url: str) -> None:
    async def go() -> None:
        async with session_service_from_url(url) as service:
            await service.create_session(
                app_name=APP, user_id="u", session_id="witness",
                state={"app:a": "before", "user:b": "before"},
            )  # fmt: skip

    asyncio.run(go())


def _refused_twice(url: str, path: Path, fragment: str, *, subprocess: bool = False) -> None:
    """Import ``path`` twice (in process, or as a subprocess): the same one-line refusal."""
    before = _store_state(url)
    errors = []
    for _ in range(2):
        if subprocess:
            result = run_cli("sessions", "import", str(path), "--url", url)
            status, stderr = result.returncode, result.stderr
        else:
            ran = CliRunner().invoke(main, ["sessions", "import", str(path), "--url", url])
            assert isinstance(ran.exception, SystemExit), ran.exception  # never a traceback
            status, stderr = ran.exit_code, ran.stderr
        assert status == 1, stderr
        assert "Traceback" not in stderr
        lines = stderr.strip().splitlines()
        assert len(lines) == 1, stderr[:2000]
        assert lines[0].startswith("Error: ")
        assert fragment in lines[0]
        assert len(lines[0]) < 600  # names the line and field; never echoes the payload
        errors.append(lines[0])
        assert _store_state(url) == before
    assert errors[0] == errors[1]


def _targets(tmp_path: Path, postgres: str, redis: str, spanner: str) -> dict[str, str]:
    sqlite = f"sqlite+aiosqlite:///{tmp_path / 'target.db'}"
    for url in (sqlite, postgres, spanner):
        _ok("db", "upgrade", "--url", url)
    return {"sqlite": sqlite, "postgres": postgres, "redis": redis, "spanner": spanner}


def test_every_damaged_file_is_refused_in_one_line_and_writes_nothing(
    tmp_path: Path, postgres_target: str, redis_target: str, spanner_target: str
) -> None:
    targets = _targets(tmp_path, postgres_target, redis_target, spanner_target)
    for url in targets.values():
        _add_witness(url)
    for number, (name, text, fragment) in enumerate(DAMAGED):
        path = tmp_path / f"bad{number}.jsonl"
        path.write_text(text, encoding="utf-8")
        for backend, url in targets.items():
            if backend == "sqlite" or name in DEFECTS:
                _refused_twice(url, path, fragment, subprocess=name == "state that is a list")
    bytes_file = tmp_path / "latin1.jsonl"
    bytes_file.write_bytes(_text(good_file()).replace("two", "tw\xe9").encode("latin-1"))
    _refused_twice(targets["sqlite"], bytes_file, "Line 2 is not UTF-8")


def test_a_good_file_imports_whole_on_every_backend_and_again_changes_nothing(
    tmp_path: Path, postgres_target: str, redis_target: str, spanner_target: str
) -> None:
    path = tmp_path / "good.jsonl"
    path.write_text(_text(good_file()), encoding="utf-8")
    for url in _targets(tmp_path, postgres_target, redis_target, spanner_target).values():
        out = _ok("sessions", "import", str(path), "--url", url)
        assert "imported 2 session(s) (2 created, 0 already present), 4 event(s)" in out
        state = _store_state(url)
        assert state[0] == [("u", "s1"), ("u", "s2")]
        again = _ok("sessions", "import", str(path), "--url", url)
        assert "(0 created, 2 already present), 0 event(s) written" in again
        assert _store_state(url) == state
