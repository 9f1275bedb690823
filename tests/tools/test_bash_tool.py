"""ExecuteBashTool: real commands in a temp workspace, run only once the user approved them."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows.functions import REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.bash_tool import BashToolPolicy, ExecuteBashTool
from adk_runtime.tools.tool_confirmation import ToolConfirmation
from tests.backends import BACKENDS, Backend
from tests.llm.helpers import APP, request_of, send, start, texts
from tests.processes import wait_gone

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the bash tool runs on POSIX only")


class _Answered:
    """The part of a ToolContext the tool reads once the user answered (approved here)."""

    def __init__(self, confirmed: bool = True) -> None:
        self.tool_confirmation = ToolConfirmation(confirmed=confirmed)


async def run_confirmed(tool: ExecuteBashTool, command: str) -> dict[str, Any]:
    result: dict[str, Any] = await tool.run_async(
        args={"command": command},
        tool_context=_Answered(),  # type: ignore[arg-type]
    )
    return result


async def exists(path: Path) -> bool:
    return await asyncio.to_thread(path.exists)


def bash_agent(model: ScriptedModel, workspace: Path, **policy: Any) -> LlmAgent:
    tool = ExecuteBashTool(workspace=workspace, policy=BashToolPolicy(**policy))
    return LlmAgent(name="shell", model=model, tools=[tool])


def answer(request: Event, *, confirmed: bool) -> types.Content:
    call = request.get_function_calls()[0]
    response = types.FunctionResponse(
        id=call.id, name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, response={"confirmed": confirmed}
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def test_a_command_runs_only_after_the_user_approves_it(
    session_service: BaseSessionService, tmp_path: Path
) -> None:
    model = ScriptedModel(
        replies=[function_call("execute_bash", {"command": "touch made.txt"}, id="b1"), "done"]
    )
    runner = await start(bash_agent(model, tmp_path), session_service)
    paused = await send(runner, "make the file")
    request = request_of(paused)
    assert not await exists(tmp_path / "made.txt")  # asked, not run
    pending = paused[-1].get_function_responses()[0].response
    assert pending is not None
    assert "requires confirmation" in pending["error"]
    asked = paused[-1].actions.requested_tool_confirmations["b1"]
    assert "touch made.txt" in asked.hint  # the user sees the exact command

    resumed = await send(runner, answer(request, confirmed=True))
    assert await exists(tmp_path / "made.txt")
    ran = resumed[0].get_function_responses()[0].response
    assert ran is not None
    assert ran["returncode"] == 0
    assert texts(resumed) == ["done"]


async def test_a_rejected_command_never_runs(
    session_service: BaseSessionService, tmp_path: Path
) -> None:
    model = ScriptedModel(
        replies=[function_call("execute_bash", {"command": "touch made.txt"}), "not done"]
    )
    runner = await start(bash_agent(model, tmp_path), session_service)
    paused = await send(runner, "make the file")
    resumed = await send(runner, answer(request_of(paused), confirmed=False))
    assert not await exists(tmp_path / "made.txt")
    assert resumed[0].get_function_responses()[0].response == {
        "error": "This tool call is rejected."
    }


async def test_a_command_the_policy_refuses_is_not_even_offered_for_confirmation(
    session_service: BaseSessionService, tmp_path: Path
) -> None:
    model = ScriptedModel(
        replies=[function_call("execute_bash", {"command": "touch made.txt"}), "refused"]
    )
    agent = bash_agent(model, tmp_path, allowed_command_prefixes=("ls", "git status"))
    runner = await start(agent, session_service)
    events = await send(runner, "make the file")
    response = events[1].get_function_responses()[0].response
    assert response is not None
    assert "Permitted prefixes are: ls, git status" in response["error"]
    assert not events[1].actions.requested_tool_confirmations
    assert texts(events) == ["refused"]
    assert not await exists(tmp_path / "made.txt")


DURABLE = [b.param() for b in BACKENDS if b.durable and b.name in ("sqlite", "postgres")]


@pytest.mark.parametrize("backend", DURABLE)
async def test_the_approval_is_answered_after_a_restart(
    backend: Backend, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    call = function_call("execute_bash", {"command": "touch made.txt"})
    async with backend.open(request) as first_process:
        runner = await start(bash_agent(ScriptedModel(replies=[call]), tmp_path), first_process)
        paused = await send(runner, "make the file")
        assert not await exists(tmp_path / "made.txt")
        # The restarted process: new services, agent, model and Runner on the same store.
        async with backend.open(request) as reopened:
            agent = bash_agent(ScriptedModel(replies=["made"]), tmp_path)
            runner2 = Runner(app_name=APP, agent=agent, session_service=reopened)
            resumed = await send(runner2, answer(request_of(paused), confirmed=True))
            assert await exists(tmp_path / "made.txt")
            assert texts(resumed) == ["made"]
            assert {e.invocation_id for e in resumed} == {request_of(paused).invocation_id}


async def test_output_cwd_stderr_and_exit_status(tmp_path: Path) -> None:
    tool = ExecuteBashTool(workspace=tmp_path)
    result = await run_confirmed(
        tool, "python3 -c 'import os, sys; print(os.getcwd()); sys.stderr.write(\"oops\"); exit(3)'"
    )
    assert result["stdout"].strip() == str(tmp_path)
    assert result["stderr"] == "oops"
    assert result["returncode"] == 3
    # no shell: operators reach the program as arguments
    echoed = await run_confirmed(tool, "echo a ; touch b")
    assert echoed["stdout"].strip() == "a ; touch b"
    assert not (tmp_path / "b").exists()


async def test_output_is_capped_and_the_rest_is_drained(tmp_path: Path) -> None:
    tool = ExecuteBashTool(workspace=tmp_path, policy=BashToolPolicy(max_output_bytes=1000))
    result = await run_confirmed(tool, "python3 -c 'print(\"a\" * 300000)'")
    assert result["returncode"] == 0  # the writer never blocked on a full pipe
    assert result["stdout"].startswith("a" * 1000)
    assert "299001 more bytes of output dropped" in result["stdout"]
    assert len(result["stdout"]) < 1100


async def test_a_timeout_kills_the_command_and_what_it_started(tmp_path: Path) -> None:
    script = tmp_path / "spawn.py"
    script.write_text(
        "import subprocess, pathlib, time\n"
        "child = subprocess.Popen(['sleep', '60'])\n"
        "pathlib.Path('child.pid').write_text(str(child.pid))\n"
        "print('started', flush=True)\n"
        "time.sleep(60)\n"
    )
    tool = ExecuteBashTool(workspace=tmp_path, policy=BashToolPolicy(timeout_seconds=1))
    result = await run_confirmed(tool, "python3 spawn.py")
    assert result["error"] == "Command timed out after 1 seconds."
    assert result["stdout"] == "started\n"  # what it wrote before the deadline is kept
    assert result["returncode"] == -signal.SIGKILL
    child = int((tmp_path / "child.pid").read_text())
    assert await wait_gone(child)


async def test_resource_limits_apply_to_the_command(tmp_path: Path) -> None:
    tool = ExecuteBashTool(workspace=tmp_path, policy=BashToolPolicy(max_file_size_bytes=1000))
    result = await run_confirmed(tool, 'python3 -c \'open("big", "wb").write(b"x" * 5000)\'')
    assert "error" not in result
    assert (tmp_path / "big").stat().st_size == 1000  # 5,000 bytes asked for


async def test_a_program_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    tool = ExecuteBashTool(workspace=tmp_path)
    result = await run_confirmed(tool, "no-such-program-here --flag")
    assert result["error"].startswith("Execution failed:")
    # a command that cannot be split into words is refused before anyone is asked
    unasked: Any = object()  # no tool_confirmation, no request_confirmation: never touched
    assert await tool.run_async(args={"command": "echo 'open"}, tool_context=unasked) == {
        "error": "The command cannot be parsed (unbalanced quotes?)."
    }


async def test_the_command_and_its_output_are_not_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    tool = ExecuteBashTool(workspace=tmp_path, policy=BashToolPolicy(timeout_seconds=1))
    await run_confirmed(tool, "echo s3cret-token")
    await run_confirmed(tool, "python3 -c 'import time; print(\"s3cret-out\"); time.sleep(5)'")
    await run_confirmed(tool, "missing-s3cret-program")
    assert "s3cret" not in caplog.text


@pytest.mark.parametrize(
    ("command", "allowed"),
    [
        ("ls -la", True),
        ("lsof", False),
        ("./ls", False),
        ("/bin/ls", False),
        ("git status --short", True),
        ("git push", False),
        ("'unbalanced", False),
    ],
)
async def test_prefixes_compare_whole_words(tmp_path: Path, command: str, allowed: bool) -> None:
    from adk_runtime.tools.bash_tool import _validate_command

    policy = BashToolPolicy(allowed_command_prefixes=("ls", "git status"))
    assert (_validate_command(command, policy) is None) is allowed
    blocked = BashToolPolicy(blocked_operators=("|",))
    assert _validate_command("ls | wc", blocked) == "Command contains blocked operator: |"
