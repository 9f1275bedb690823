"""What a first-time user trips over: typos, a busy port, a bad host, pipes, re-runs."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from adk_runtime.cli import main
from adk_runtime.sessions import session_service_from_url
from adk_runtime.testing import text_event
from adk_runtime.utils._hosts import unresolved_host
from tests.cli.test_cli import assert_one_line_error
from tests.serving import cli_env, run_cli
from tests.stores import REDIS_URL

AGENT = "tests.server.agent:root_agent"


@pytest.mark.parametrize(
    ("args", "suggestion"),
    [
        (["sesions"], "Did you mean 'sessions'?"),
        (["serv"], "Did you mean 'serve'?"),
        (["sessions", "lst"], "Did you mean 'list'?"),
        (["db", "chek"], "Did you mean 'check'?"),
    ],
)
def test_a_misspelt_command_gets_a_did_you_mean(args: list[str], suggestion: str) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert suggestion in result.stderr


def test_an_unknown_command_is_a_usage_error_without_a_guess() -> None:
    result = CliRunner().invoke(main, ["frobnicate"])
    assert result.exit_code == 2
    assert "No such command 'frobnicate'." in result.stderr
    assert "Did you mean" not in result.stderr


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another server listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield other.getsockname()[1]


@pytest.mark.parametrize(
    "command",
    [
        ("serve", "--agent", AGENT, "--url", "memory://"),
        ("mcp", "--agent", AGENT, "--url", "memory://", "--transport", "streamable-http"),
    ],
    ids=["serve", "mcp"],
)
def test_a_busy_port_is_one_line_before_anything_is_served(
    busy_port: int, command: tuple[str, ...]
) -> None:
    result = run_cli(*command, "--port", str(busy_port))
    assert_one_line_error(result, f"Port {busy_port} on 127.0.0.1 is in use", "--port")
    assert "serving" not in result.stderr + result.stdout


def test_a_host_that_does_not_resolve_is_named_when_serving() -> None:
    result = run_cli(
        "serve", "--agent", AGENT, "--url", "memory://", "--host", "no-such-host.invalid"
    )
    assert_one_line_error(result, "'no-such-host.invalid' does not resolve")


def test_serve_announces_the_port_it_bound() -> None:
    # --port 0 picks a free port: the announcement names it (it said ':0' before).
    proc = subprocess.Popen(
        [sys.executable, "-m", "adk_runtime.cli", "serve", "--agent", AGENT, "--url", "memory://",
         "--port", "0"],
        env=cli_env(), stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        assert line.startswith("serving 'echo_app' on http://127.0.0.1:"), line
        port = int(line.split("http://127.0.0.1:")[1].split()[0])
        assert port > 0
    finally:
        proc.terminate()
        proc.communicate(timeout=30)  # and close the pipe


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+asyncpg://app:s3cret@no-such-host.invalid/app",
        "redis://:s3cret@no-such-host.invalid:6379/0",
    ],
)
def test_a_store_host_that_does_not_resolve_is_not_worth_a_retry(url: str) -> None:
    result = run_cli("sessions", "list", "--url", url, "--app", "a")
    assert_one_line_error(result, "'no-such-host.invalid'", "does not resolve")
    assert "retrying will not help" in result.stderr
    assert "Retry it" not in result.stderr
    assert "retrying it is safe" not in result.stderr
    assert "s3cret" not in result.stderr


def test_only_a_name_that_does_not_exist_counts_as_unresolved() -> None:
    def raised_from(error: BaseException) -> BaseException:
        try:
            raise ConnectionError("Error connecting") from error
        except ConnectionError as outer:
            return outer

    assert unresolved_host(raised_from(socket.gaierror(socket.EAI_NONAME, "Name unknown")))
    # No DNS server reachable for now: a retry may succeed.
    assert not unresolved_host(raised_from(socket.gaierror(socket.EAI_AGAIN, "Try again")))
    assert not unresolved_host(ConnectionRefusedError())


@pytest.mark.parametrize("command", ["check", "upgrade", "current", "stamp"])
@pytest.mark.parametrize("url", [REDIS_URL, "memory://"])
def test_db_on_a_store_without_a_schema_says_it_needs_none(command: str, url: str) -> None:
    result = CliRunner().invoke(main, ["db", command, "--url", url])
    assert result.exit_code == 0, result.output
    assert "needs no schema" in result.stdout
    assert "not a supported database" not in result.output


def _long_state_session(url: str) -> None:
    async def fill() -> None:
        async with session_service_from_url(url) as service:
            state = {"notes": [f"a rather long note number {i}" for i in range(12)]}
            state["markup"] = "[/x] [bold]not bold[/bold]"  # printed as it is, never as markup
            session = await service.create_session(
                app_name="notes", user_id="u", session_id="s", state=state
            )
            await service.append_event(session, text_event("[/oops] " + "word " * 40, role="user"))

    asyncio.run(fill())


@pytest.mark.sqlite
def test_piped_output_is_never_hard_wrapped(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
    _long_state_session(url)
    env = cli_env()
    del env["COLUMNS"]  # piped to a file: rich would wrap at 80 columns
    shown = run_cli("sessions", "show", "s", "--url", url, "--app", "notes", "--user", "u", env=env)
    assert shown.returncode == 0, shown.stderr
    [state_line] = [line for line in shown.stdout.splitlines() if line.startswith("state: ")]
    state = json.loads(state_line.removeprefix("state: "))
    assert state["markup"] == "[/x] [bold]not bold[/bold]"
    assert len(state["notes"]) == 12
    assert "[/oops]" in shown.stdout  # an event's text is text too (it crashed rich before)

    chat = run_cli(
        "chat", "--agent", AGENT, "--url", url, "--app", "notes", "--user", "u", "--session", "s",
        stdin="exit\n", env=env,
    )  # fmt: skip
    assert chat.returncode == 0, chat.stderr
    [state_line] = [line for line in chat.stdout.splitlines() if line.startswith("state ")]
    assert json.loads(state_line.removeprefix("state "))["markup"] == state["markup"]


@pytest.mark.sqlite
def test_the_demo_run_again_and_again_adds_no_fact_twice(tmp_path: Path) -> None:
    runs = [run_cli("demo", cwd=tmp_path) for _ in range(3)]
    notes = []
    for run in runs:
        assert run.returncode == 0, run.stderr
        *_, last_state = (line for line in run.stdout.splitlines() if line.startswith("state "))
        notes.append(json.loads(last_state.removeprefix("state "))["user:notes"])
    assert notes[1] == ["the meeting is at 3pm", "the demo resumed from storage"]
    assert notes[2] == notes[1]
    assert "I already remember that." in runs[2].stdout
