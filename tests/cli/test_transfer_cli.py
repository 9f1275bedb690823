"""Move sessions SQLite → PostgreSQL → Redis with `sessions export|import` (subprocesses).

Every hop must keep every session, event (id, order, content), revision and app/user state:
the export of each target equals the export of the source, except update times.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.backends import REDIS_URL, drop_redis_prefix, redis_test_prefix
from tests.serving import run_cli
from tests.sql_support import create_database, drop_database, run_in_thread, unique_name

pytestmark = [pytest.mark.sqlite, pytest.mark.postgres, pytest.mark.redis]
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
    assert "imported 4 session(s) (4 created, 0 resumed, 0 already present)" in out
    assert _export(postgres_target, tmp_path / "pg.jsonl") == source

    again = _ok("sessions", "import", str(tmp_path / "source.jsonl"), "--url", postgres_target)
    assert "(0 created, 0 resumed, 4 already present), 0 event(s) appended" in again
    assert _export(postgres_target, tmp_path / "pg2.jsonl") == source

    _ok("sessions", "import", str(tmp_path / "pg.jsonl"), "--url", redis_target)
    assert _export(redis_target, tmp_path / "redis.jsonl") == source

    shown = _ok(
        "sessions", "show", "demo", "--url", redis_target, "--app", "notes",
        "--user", "demo", "--json",
    )  # fmt: skip
    session = json.loads(shown)
    assert session["revision"] == len(session["events"])
