"""EnvironmentToolset through the Runner: a model writes, edits, reads and runs in a temp dir."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.environment import LocalEnvironment
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows.functions import REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.environment import EnvironmentToolset
from tests.llm.helpers import send, start, texts

pytestmark = pytest.mark.skipif(os.name != "posix", reason="commands run in a POSIX shell")


def responses(events: list[Event]) -> dict[str, Any]:
    return {
        response.name: response.response
        for event in events
        for response in event.get_function_responses()
        if response.name
    }


async def test_a_model_works_in_the_environment(
    session_service: BaseSessionService, tmp_path: Path
) -> None:
    model = ScriptedModel(
        replies=[
            function_call("WriteFile", {"path": "app.py", "content": "print('hello')\n"}),
            function_call(
                "EditFile", {"path": "app.py", "old_string": "hello", "new_string": "bye"}
            ),
            function_call("ReadFile", {"path": "app.py"}),
            function_call("Execute", {"command": "python3 app.py && exit 2"}),
            "ran it",
        ]
    )
    environment = LocalEnvironment(working_dir=tmp_path)
    toolset = EnvironmentToolset(environment=environment)
    runner = await start(LlmAgent(name="dev", model=model, tools=[toolset]), session_service)
    events = await send(runner, "write and run a program")
    assert texts(events) == ["ran it"]
    answered = responses(events)
    assert answered["WriteFile"] == {"status": "ok", "message": "Wrote app.py"}
    assert answered["EditFile"] == {"status": "ok", "message": "Edited app.py"}
    assert answered["ReadFile"] == {"status": "ok", "content": "     1\tprint('bye')\n"}
    assert answered["Execute"] == {"status": "error", "stdout": "bye\n", "exit_code": 2}
    assert await asyncio.to_thread((tmp_path / "app.py").read_text) == "print('bye')\n"
    instruction = str(model.requests[0].config.system_instruction)
    assert f"{tmp_path}/" in instruction
    declared = {
        d.name for t in model.requests[0].config.tools or [] for d in t.function_declarations or []
    }
    assert declared == {"Execute", "ReadFile", "EditFile", "WriteFile"}
    await runner.close()
    assert not environment.is_initialized


def answer(events: list[Event], *, confirmed: bool) -> types.Content:
    (call,) = [
        call
        for event in events
        for call in event.get_function_calls()
        if call.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
    ]
    response = types.FunctionResponse(
        id=call.id, name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, response={"confirmed": confirmed}
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


@pytest.mark.parametrize("confirmed", [True, False])
async def test_with_require_confirmation_commands_and_writes_wait_for_the_user(
    session_service: BaseSessionService, tmp_path: Path, confirmed: bool
) -> None:
    model = ScriptedModel(
        replies=[
            function_call("ReadFile", {"path": "notes.txt"}),
            function_call("Execute", {"command": "touch made.txt"}),
            "finished",
        ]
    )
    await asyncio.to_thread((tmp_path / "notes.txt").write_text, "a note\n")
    toolset = EnvironmentToolset(
        environment=LocalEnvironment(working_dir=tmp_path), require_confirmation=True
    )
    runner = await start(LlmAgent(name="dev", model=model, tools=[toolset]), session_service)
    paused = await send(runner, "go")
    # reading needs no approval; the command waits for one
    assert responses(paused)["ReadFile"] == {"status": "ok", "content": "     1\ta note\n"}
    assert responses(paused)["Execute"]["status"] == "error"
    assert not await asyncio.to_thread((tmp_path / "made.txt").exists)
    resumed = await send(runner, answer(paused, confirmed=confirmed))
    assert await asyncio.to_thread((tmp_path / "made.txt").exists) is confirmed
    expected = (
        {"status": "ok"}
        if confirmed
        else {"status": "error", "error": "This tool call is rejected."}
    )
    assert responses(resumed)["Execute"] == expected
    assert texts(resumed) == ["finished"]
    await runner.close()


async def test_tool_errors_are_answers_not_exceptions(tmp_path: Path) -> None:
    environment = LocalEnvironment(working_dir=tmp_path)
    toolset = EnvironmentToolset(environment=environment, max_output_chars=5)
    tools = {tool.name: tool for tool in await toolset.get_tools()}
    await environment.write_file("t.txt", "x\nx\nlong line here\n")

    async def call(name: str, **args: Any) -> Any:
        return await tools[name].run_async(args=args, tool_context=None)  # type: ignore[arg-type]

    assert await call("EditFile", path="t.txt", old_string="x", new_string="y") == {
        "status": "error",
        "error": "`old_string` appears 2 times; include more of the surrounding text so that "
        "it occurs once.",
    }
    assert (await call("EditFile", path="t.txt", old_string="", new_string="y"))[
        "status"
    ] == "error"
    assert (await call("ReadFile", path="../escape.txt"))["error"].startswith("Path escapes")
    assert await call("ReadFile", path="t.txt", start_line=9) == {
        "status": "error",
        "error": "`start_line` 9 is past the end of the file (3 lines).",
        "total_lines": 3,
    }
    read = await call("ReadFile", path="t.txt", start_line=3, end_line=3)
    assert read == {
        "status": "ok",
        "content": "     \n... (truncated, 22 total chars)",
        "total_lines": 3,
    }
    assert await call("WriteFile", path="/etc/x", content="y") == {
        "status": "error",
        "error": "Path escapes working directory: /etc/x",
    }
    assert (await call("Execute", command=""))["error"] == "`command` is required."
    await toolset.close()
