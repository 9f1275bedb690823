"""The adk-runtime CLI through subprocesses: clear one-line errors, chat, demo."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.serving import cli_env, run_cli
from tests.sql_support import create_database, drop_database, run_in_thread, unique_name


def assert_one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_unknown_url_scheme() -> None:
    result = run_cli("sessions", "list", "--url", "nosuch://x", "--app", "a")
    assert_one_line_error(result, "nosuch", "Supported schemes", "memory")


def test_url_from_the_environment() -> None:
    env = cli_env(ADK_RUNTIME_SESSION_URL="nosuch://from-env")
    result = run_cli("sessions", "list", "--app", "a", env=env)
    assert_one_line_error(result, "nosuch://from-env")


def test_missing_url_is_a_usage_error() -> None:
    result = run_cli("sessions", "list", "--app", "a")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "--url" in result.stderr


def test_passwords_never_printed() -> None:
    url = "postgresql+asyncpg://bob:hunter2@127.0.0.1:1/nowhere"
    result = run_cli("sessions", "list", "--url", url, "--app", "a")
    assert result.returncode != 0
    assert "hunter2" not in result.stderr + result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        ("no_such_module_xyz:agent", "Cannot import agent module 'no_such_module_xyz'"),
        ("tests.server.agent", "must be 'module:attribute'"),
        ("tests.server.agent:missing", "has no attribute 'missing'"),
        ("tests.server.agent:not_an_agent", "not an agent"),
    ],
)
def test_bad_agent_spec(spec: str, fragment: str) -> None:
    result = run_cli("serve", "--agent", spec, "--session-url", "memory://")
    assert_one_line_error(result, fragment)
    chat = run_cli("chat", "--agent", spec, "--session-url", "memory://")
    assert_one_line_error(chat, fragment)


def test_show_missing_session() -> None:
    result = run_cli("sessions", "show", "nope", "--url", "memory://", "--app", "a", "--user", "u")
    assert_one_line_error(result, "No session 'nope'", "sessions list")


def test_import_refuses_a_file_that_is_not_an_export(tmp_path: Path) -> None:
    bogus = tmp_path / "bogus.jsonl"
    bogus.write_text('{"hello": 1}\n', encoding="utf-8")
    result = run_cli("sessions", "import", str(bogus), "--url", "memory://")
    assert_one_line_error(result, "not an adk-runtime sessions export")


def test_chat_streams_replies_from_stdin() -> None:
    result = run_cli(
        "chat", "--agent", "tests.server.agent:root_agent", "--session-url", "memory://",
        stdin="hello there\nstream\n",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "New session" in result.stdout
    assert "agent > echo: hello there" in result.stdout
    # partial chunks print on one line as they arrive; the committed text is not repeated
    assert "agent > Hello, world\n" in result.stdout
    assert result.stdout.count("Hello, world") == 1


def test_demo_runs_offline_with_a_scripted_conversation() -> None:
    result = run_cli("demo", "--session-url", "memory://")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "remember_fact" in out
    assert "Saved notes.md (version 0)" in out
    assert "You asked me to remember: the meeting is at 3pm" in out
    assert '"user:notes": ["the meeting is at 3pm"]' in out


def test_demo_with_gemini_but_no_key() -> None:
    env = cli_env(GOOGLE_API_KEY="", GEMINI_API_KEY="", GOOGLE_GENAI_USE_VERTEXAI="")
    result = run_cli("demo", "--session-url", "memory://", "--model", "gemini-2.5-flash", env=env)
    assert_one_line_error(result, "GOOGLE_API_KEY", "leave --model out")


def test_demo_with_an_unknown_model() -> None:
    result = run_cli("demo", "--session-url", "memory://", "--model", "no-such-model")
    assert_one_line_error(result, "no-such-model")


def test_chat_reports_a_failing_agent_in_one_line_and_goes_on() -> None:
    result = run_cli(
        "chat", "--agent", "tests.server.agent:root_agent", "--session-url", "memory://",
        stdin="fail\nhello\n",
    )  # fmt: skip
    # From a pipe the exit status still says a turn failed.
    assert_one_line_error(result, "The agent failed: RuntimeError: the agent broke")
    assert "agent > about to fail" in result.stdout  # what it said before failing was shown
    assert "agent > echo: hello" in result.stdout  # and the next line was answered


@pytest.mark.postgres
def test_serve_refuses_a_database_without_schema() -> None:
    name = unique_name("adk_serve")
    url = run_in_thread(create_database, name)
    try:
        result = run_cli("serve", "--agent", "tests.server.agent:root_agent", "--url", url)
        assert_one_line_error(result, "adk-runtime db upgrade --url")
    finally:
        run_in_thread(drop_database, name)


def test_serve_refuses_an_unreachable_store() -> None:
    url = "redis://:s3cret@127.0.0.1:1/0"
    result = run_cli("serve", "--agent", "tests.server.agent:root_agent", "--url", url)
    assert_one_line_error(result, "unavailable")
    assert "s3cret" not in result.stderr
