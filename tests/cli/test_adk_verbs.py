"""google-adk's verbs: ``create`` an agent folder, ``run`` it, ``web`` / ``api_server`` = serve."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click
import httpx

from adk_runtime.cli.serve import api_server, serve, web
from tests.cli.test_cli import assert_one_line_error
from tests.serving import cli_env, free_port, run_cli, running_process

OFFLINE_LINE = "MODEL = ScriptedModel(handler=offline_reply)"


def _create(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    result = run_cli("create", *args, cwd=tmp_path)
    assert result.returncode == 0, result
    return result


def test_create_makes_an_agent_folder_that_runs_offline(tmp_path: Path) -> None:
    created = _create(tmp_path, "my_agent")
    folder = tmp_path / "my_agent"
    assert sorted(p.name for p in folder.iterdir()) == [
        ".env",
        ".gitignore",
        "__init__.py",
        "agent.py",
    ]
    assert "adk-runtime run my_agent" in created.stdout
    assert ".env" in (folder / ".gitignore").read_text().split()

    first = run_cli("run", "my_agent", cwd=tmp_path, stdin="hello there\nhow are you\n")
    assert first.returncode == 0, first
    assert "New session" in first.stdout
    assert "in app my_agent" in first.stdout
    assert "You said: 'hello there'" in first.stdout
    assert "You said: 'how are you'" in first.stdout
    assert (tmp_path / ".adk_runtime" / "sessions.db").is_file()

    # a QUERY argument is one turn; the user's latest session is resumed from the file
    again = run_cli("run", "my_agent", "once more", cwd=tmp_path)
    assert again.returncode == 0, again
    assert "Resumed session" in again.stdout
    assert "revision 4" in again.stdout
    assert "You said: 'once more'" in again.stdout


def test_one_line_switches_the_created_agent_to_gemini(tmp_path: Path) -> None:
    _create(tmp_path, "my_agent")
    agent_py = tmp_path / "my_agent" / "agent.py"
    lines = agent_py.read_text().splitlines()
    assert lines.count(OFFLINE_LINE) == 1
    agent_py.write_text(
        "\n".join('MODEL = "gemini-2.5-flash"' if line == OFFLINE_LINE else line for line in lines)
    )
    shown = subprocess.run(
        [
            sys.executable,
            "-c",
            "from adk_runtime.cli._common import load_agent; app = load_agent('my_agent'); "
            "print(app.name, app.root_agent.canonical_model.model)",
        ],
        cwd=tmp_path,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert shown.stdout.split() == ["my_agent", "gemini-2.5-flash"]


def test_create_with_a_model_names_it(tmp_path: Path) -> None:
    _create(tmp_path, "agents/helper", "--model", "gemini-2.5-flash")
    text = (tmp_path / "agents" / "helper" / "agent.py").read_text()
    assert 'MODEL = "gemini-2.5-flash"' in text.splitlines()
    assert 'name="helper"' in text


def test_create_refuses_a_bad_name_or_a_folder_in_use(tmp_path: Path) -> None:
    assert_one_line_error(run_cli("create", "1st", cwd=tmp_path), "'1st' cannot name an agent")
    assert_one_line_error(run_cli("create", "my-agent", cwd=tmp_path), "cannot name an agent")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "keep.txt").write_text("mine")
    result = run_cli("create", "taken", cwd=tmp_path)
    assert_one_line_error(result, "already exists and is not empty")
    assert sorted(p.name for p in (tmp_path / "taken").iterdir()) == ["keep.txt"]


def test_an_agent_folder_names_the_app_and_its_env_file_is_read(tmp_path: Path) -> None:
    folder = tmp_path / "weather"
    folder.mkdir()
    (folder / ".env").write_text("WEATHER_REPLY=sunny from .env\nWEATHER_KEPT=from .env\n")
    (folder / "agent.py").write_text(
        "import os\n"
        "from adk_runtime.agents import Agent\n"
        "from adk_runtime.testing import ScriptedModel\n"
        "reply = os.environ['WEATHER_REPLY'] + ', ' + os.environ['WEATHER_KEPT']\n"
        "root_agent = Agent(name='forecaster', model=ScriptedModel(handler=lambda r: reply))\n"
    )
    env = cli_env(WEATHER_KEPT="from the environment")
    result = run_cli("run", "weather", "hi", cwd=tmp_path, env=env)
    assert result.returncode == 0, result
    assert "in app weather" in result.stdout  # the folder's name, as google-adk's apps
    assert "sunny from .env, from the environment" in result.stdout
    assert "mismatch" not in result.stderr


def test_run_on_a_folder_without_an_agent_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty_one").mkdir()
    result = run_cli("run", "empty_one", "hi", cwd=tmp_path)
    assert_one_line_error(result, "'empty_one' exposes nothing to run", "root_agent")


def _options(command: click.Command) -> list[tuple[str, ...]]:
    return [tuple(p.opts) for p in command.params]


def test_web_and_api_server_are_serve_by_google_adks_names() -> None:
    assert _options(web) == _options(serve)
    assert _options(api_server) == _options(serve)
    assert web.callback is not None
    for command, dev_ui in ((api_server, False), (web, True)):
        ctx = command.make_context(command.name, ["--agent", "x:y"])
        assert ctx.params["dev_ui"] is dev_ui
        assert ctx.params["session_url"] == "sqlite+aiosqlite:///.adk_runtime/sessions.db"
    ctx = serve.make_context("serve", ["--agent", "x:y", "--session-url", "memory://"])
    assert ctx.params["dev_ui"] is False
    for name in ("web", "api_server"):
        shown = run_cli(name, "--help")
        assert shown.returncode == 0, shown
        assert "serve" in shown.stdout
        assert "--session-wait" in shown.stdout
        assert f"Usage: python -m adk_runtime.cli {name} [OPTIONS]" in shown.stdout


def test_api_server_serves_the_sessions_run_made(tmp_path: Path) -> None:
    _create(tmp_path, "my_agent")
    first = run_cli("run", "my_agent", "hello", "--session", "s1", cwd=tmp_path)
    assert first.returncode == 0, first
    port = free_port()
    command = [sys.executable, "-m", "adk_runtime.cli", "api_server", "--agent", "my_agent"]
    with running_process([*command, "--port", str(port)], port, "/health", cwd=tmp_path) as base:
        apps = httpx.get(f"{base}/list-apps", timeout=10).json()
        session = httpx.get(f"{base}/apps/my_agent/users/user/sessions/s1", timeout=10)
    assert apps == ["my_agent"]
    assert session.status_code == 200, session.text
    texts = [e["content"]["parts"][0]["text"] for e in session.json()["events"]]
    assert texts[0] == "hello"
    assert "You said: 'hello'" in texts[1]
