"""run_skill_script: only through an executor the application gives, never by default."""

from __future__ import annotations

import json
from typing import Any

import pytest

from adk_runtime.agents import LlmAgent, ReadonlyContext
from adk_runtime.code_executors import BuiltInCodeExecutor
from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult
from adk_runtime.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.skills import Frontmatter, Resources, Script, Skill
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext, _skill_script
from adk_runtime.tools.skill_toolset import SkillToolset
from tests.llm.helpers import send, start
from tests.skills.test_toolset import declared, responses


def skill_with(scripts: dict[str, str], **references: str) -> Skill:
    return Skill(
        frontmatter=Frontmatter(name="tools", description="Has scripts."),
        instructions="Run scripts/echo.py.",
        resources=Resources(
            references=dict(references), scripts={k: Script(src=v) for k, v in scripts.items()}
        ),
    )


ECHO = (
    "import pathlib, sys\n"
    "print('args', sys.argv[1:])\n"
    "print(pathlib.Path('references/data.txt').read_text())\n"
)


@pytest.fixture
def unsafe_executor() -> UnsafeLocalCodeExecutor:
    with pytest.warns(UserWarning, match="runs code written by a model"):
        return UnsafeLocalCodeExecutor(allow_unsafe_local_execution=True)


async def run(toolset: SkillToolset, *calls: Any, agent_executor: Any = None) -> list[Any]:
    model = ScriptedModel(replies=[list(calls), "done"])
    agent = LlmAgent(name="desk", model=model, tools=[toolset], code_executor=agent_executor)
    runner = await start(agent, InMemorySessionService())
    await send(runner, "run it")
    return [r.response for r in responses(model.requests[1])]


async def test_a_script_runs_through_the_given_executor(
    unsafe_executor: UnsafeLocalCodeExecutor,
) -> None:
    toolset = SkillToolset(
        [skill_with({"echo.py": ECHO, "fail.sh": "echo oops >&2; exit 3"}, **{"data.txt": "DATA"})],
        code_executor=unsafe_executor,
    )
    ok, failed, unsupported, missing = await run(
        toolset,
        function_call(
            "run_skill_script",
            {
                "skill_name": "tools",
                "file_path": "scripts/echo.py",
                "args": {"out": "a.txt", "v": True},
            },
        ),
        function_call("run_skill_script", {"skill_name": "tools", "file_path": "fail.sh"}),
        function_call("run_skill_script", {"skill_name": "tools", "file_path": "scripts/x.rb"}),
        function_call("run_skill_script", {"skill_name": "tools", "file_path": "scripts/no.py"}),
    )
    assert ok["status"] == "success"
    assert "args ['--out', 'a.txt', '--v']" in ok["stdout"]
    assert "DATA" in ok["stdout"]  # the skill's files are there, relative to the script's cwd
    assert failed["status"] == "error"
    assert "oops" in failed["stderr"]
    assert "Exit code 3" in failed["stderr"]
    assert unsupported["error_code"] == "SCRIPT_NOT_FOUND"
    assert missing["error_code"] == "SCRIPT_NOT_FOUND_FATAL"


async def test_no_script_runs_without_an_executor() -> None:
    toolset = SkillToolset([skill_with({"echo.py": ECHO})])
    model = ScriptedModel(replies=["no"])
    runner = await start(
        LlmAgent(name="desk", model=model, tools=[toolset]), InMemorySessionService()
    )
    await send(runner, "run it")
    assert "run_skill_script" not in declared(model.requests[0])
    # called anyway (hand-made, as a model inventing the tool would): refused, nothing runs
    tool = next(t for t in toolset._tools if t.name == "run_skill_script")
    session = await runner.session_service.get_session(
        app_name="app", user_id="u1", session_id="s1"
    )
    assert session is not None
    context = ToolContext(_invocation(runner, session, toolset))
    answer = await tool.run_async(
        args={"skill_name": "tools", "file_path": "echo.py"}, tool_context=context
    )
    assert answer["error_code"] == "NO_CODE_EXECUTOR"


def _invocation(runner: Any, session: Any, toolset: SkillToolset, executor: Any = None) -> Any:
    from adk_runtime.agents.invocation_context import InvocationContext

    agent = LlmAgent(name="desk", model=ScriptedModel(), tools=[toolset])
    agent.code_executor = executor
    return InvocationContext(
        invocation_id="inv-1", agent=agent, session=session, session_service=runner.session_service
    )


async def test_the_builtin_executor_never_runs_skill_scripts() -> None:
    toolset = SkillToolset([skill_with({"echo.py": ECHO})])
    runner = await start(
        LlmAgent(name="desk", model=ScriptedModel(), tools=[toolset]), InMemorySessionService()
    )
    session = await runner.session_service.get_session(
        app_name="app", user_id="u1", session_id="s1"
    )
    builtin = ReadonlyContext(_invocation(runner, session, toolset, BuiltInCodeExecutor()))
    assert toolset._executor_for(builtin) is None
    assert "run_skill_script" not in [t.name for t in await toolset.get_tools(builtin)]
    recorder = Recorder(inputs=[])
    own = ReadonlyContext(_invocation(runner, session, toolset, recorder))
    assert toolset._executor_for(own) is recorder


class Recorder(BaseCodeExecutor):
    inputs: list[CodeExecutionInput] = []

    async def execute_code(
        self, invocation_context: Any, code_execution_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        self.inputs.append(code_execution_input)
        return CodeExecutionResult(stdout="no envelope", stderr="Traceback: boom")


async def test_the_agents_own_executor_is_used_and_unsafe_paths_never_run() -> None:
    recorder = Recorder(inputs=[])
    evil = skill_with({"echo.py": ECHO}, **{"../../etc/cron.d/evil": "x"})
    (answer,) = await run(
        SkillToolset([evil]),
        function_call("run_skill_script", {"skill_name": "tools", "file_path": "echo.py"}),
        agent_executor=recorder,
    )
    assert answer["error_code"] == "EXECUTION_ERROR"
    assert recorder.inputs == []  # refused before anything reached the executor

    (answer,) = await run(
        SkillToolset([skill_with({"echo.py": ECHO})]),
        function_call("run_skill_script", {"skill_name": "tools", "file_path": "echo.py"}),
        agent_executor=recorder,
    )
    assert len(recorder.inputs) == 1
    assert answer == {
        "error": "The script could not be started.",
        "error_code": "EXECUTION_ERROR",
        "stderr": "Traceback: boom",
    }


def test_the_runner_program_refuses_paths_leaving_its_directory(tmp_path: Any) -> None:
    code = _skill_script.build_runner_code(
        skill_with({"echo.py": ECHO}), "echo.py", [], timeout=5, marker="M:"
    ).code
    payload = json.loads(eval(code.split("json.loads(", 1)[1].split(")\n", 1)[0]))
    payload["files"]["../escape.txt"] = ["text", "x"]
    tampered = code.replace(
        code.split("json.loads(", 1)[1].split(")\n", 1)[0], repr(json.dumps(payload))
    )
    with pytest.raises(PermissionError):
        exec(compile(tampered, "<runner>", "exec"), {})
    assert not (tmp_path.parent / "escape.txt").exists()


def test_large_skills_travel_as_an_input_file() -> None:
    big = skill_with({"echo.py": ECHO}, **{"big.md": "x" * 100_000})
    code_input = _skill_script.build_runner_code(big, "echo.py", [], timeout=5, marker="M:")
    assert [f.name for f in code_input.input_files] == [_skill_script.PAYLOAD_FILE]
    assert "x" * 1000 not in code_input.code


def test_arguments_are_built_like_a_command_line() -> None:
    argv = _skill_script.script_argv({"out": "a", "v": True, "q": False}, {"n": 2}, ["p"])
    assert argv == ["--out", "a", "--v", "-n", "2", "p"]
    assert _skill_script.script_argv(["x", 1]) == ["x", "1"]
