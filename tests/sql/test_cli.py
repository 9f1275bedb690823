"""``adk-runtime db`` through real subprocesses, as a deploy script would run it."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from alembic.script import ScriptDirectory

from adk_runtime.sql import migrate

ROOT = Path(__file__).resolve().parents[2]


def _cli(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "adk_runtime.cli", "db", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def test_upgrade_check_current_stamp(empty_url: str) -> None:
    behind = _cli("check", "--url", empty_url)
    assert behind.returncode == 1
    assert "adk-runtime db upgrade --url" in behind.stdout + behind.stderr
    current = _cli("current", "--url", empty_url)
    if empty_url.startswith("sqlite"):  # a new SQLite path: not created by check or current
        assert current.returncode == 1
        assert "does not exist" in current.stderr
        assert not Path(empty_url.partition(":///")[2]).exists()
    else:
        assert current.stdout.startswith("none")

    upgraded = _cli("upgrade", env={"ADK_RUNTIME_SESSION_URL": empty_url})
    assert upgraded.returncode == 0, upgraded.stderr
    assert _cli("check", "--url", empty_url).returncode == 0
    head = ScriptDirectory.from_config(migrate.alembic_config()).get_current_head()
    assert head is not None
    assert _cli("current", "--url", empty_url).stdout.startswith(head)

    assert _cli("stamp", "--url", empty_url, "base").returncode == 0
    assert _cli("check", "--url", empty_url).returncode == 1
    stamped = _cli("stamp", "--url", empty_url)
    assert stamped.returncode == 0, stamped.stderr
    assert f"stamped at revision {head} " in stamped.stdout  # the revision, not "head"
    assert "revision head" not in stamped.stdout


@pytest.mark.parametrize("command", ["check", "current", "stamp"])
def test_a_missing_sqlite_file_is_reported_not_created(command: str, tmp_path: Path) -> None:
    path = tmp_path / "typo.db"
    result = _cli(command, "--url", f"sqlite+aiosqlite:///{path}")
    assert result.returncode == 1
    assert f"The SQLite file {path} does not exist" in result.stderr
    assert "db upgrade" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert not path.exists()


def test_server_down_names_host_and_port_without_password() -> None:
    result = _cli("check", "--url", "postgresql+asyncpg://bob:hunter2@127.0.0.1:1/db")
    assert result.returncode == 1
    assert "is the PostgreSQL server running at 127.0.0.1:1?" in result.stderr
    assert "Retry it" not in result.stderr
    assert "hunter2" not in result.stderr + result.stdout
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "postgresql+psycopg2://bob:hunter2@localhost/db",
            "postgresql+asyncpg://bob:***@localhost/db",
        ),
        ("mysql://bob:hunter2@localhost/db", "not a supported database URL"),
        ("postgresql://bob:hunter2@127.0.0.1:1/db", "Cannot connect to postgresql"),
    ],
)
def test_user_mistakes_print_one_line_without_secrets(url: str, expected: str) -> None:
    result = _cli("upgrade", "--url", url)
    assert result.returncode == 1
    assert expected in result.stderr
    assert "hunter2" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_missing_url_is_a_usage_error() -> None:
    env = {key: value for key, value in os.environ.items() if key != "ADK_RUNTIME_SESSION_URL"}
    result = subprocess.run(
        [sys.executable, "-m", "adk_runtime.cli", "db", "check"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2
    assert "--url" in result.stderr


@pytest.mark.postgres
def test_ten_replicas_upgrade_at_once(postgres_url: str) -> None:
    from tests.sql_support import create_database, drop_database, run_in_thread, unique_name

    name = unique_name("adk_replicas")
    empty_url = run_in_thread(create_database, name)
    try:
        _ten_replicas(empty_url)
    finally:
        run_in_thread(drop_database, name)


def _ten_replicas(empty_url: str) -> None:
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "adk_runtime.cli", "db", "upgrade", "--url", empty_url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(10)
    ]
    results = [(p.wait(timeout=180), p.stderr.read() if p.stderr else "") for p in processes]
    for process in processes:
        for stream in (process.stdout, process.stderr):
            if stream:
                stream.close()
    assert [code for code, _ in results] == [0] * 10, [err for _, err in results]
    assert _cli("check", "--url", empty_url).returncode == 0


@pytest.mark.sqlite
def test_installed_wheel_carries_its_migrations(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = tmp_path.glob("adk_runtime-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        archive.extractall(site)
    assert "adk_runtime/_migrations/env.py" in names
    assert "adk_runtime/_migrations/versions/0001_sessions.py" in names
    assert "adk_runtime/_migrations/versions/0002_artifacts_memory.py" in names
    url = f"sqlite:///{tmp_path / 'from_wheel.db'}"
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    env = {"PYTHONPATH": str(site)}
    where = subprocess.run(
        [
            sys.executable,
            "-c",
            "from adk_runtime.sql.migrate import migrations_path as m; print(m())",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
        cwd=elsewhere,
    )
    assert where.stdout.strip().startswith(str(site)), where.stderr
    upgraded = _cli("upgrade", "--url", url, env=env, cwd=elsewhere)
    assert upgraded.returncode == 0, upgraded.stderr
    assert _cli("check", "--url", url, env=env, cwd=elsewhere).returncode == 0
