"""run_skill_script: only through an executor the application gives, never by default."""

from __future__ import annotations

from pathlib import Path
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
    # google-adk's command line: every option as `--key str(value)`
    assert "args ['--out', 'a.txt', '--v', 'True']" in ok["stdout"]
    assert ok["file_path"] == "scripts/echo.py"  # as the model gave it
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
    from adk_runtime.core.invocation_context import InvocationContext

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
    # a Python script runs inside the program: the executor's streams are the script's
    assert answer == {
        "skill_name": "tools",
        "file_path": "echo.py",
        "stdout": "no envelope",
        "stderr": "Traceback: boom",
        "status": "warning",
    }


@pytest.mark.parametrize("escape", ["../escape.txt", "/tmp/adk-skill-escape.txt", "a/../../x"])
def test_the_runner_program_refuses_paths_leaving_its_directory(
    escape: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    monkeypatch.chdir(tmp_path)
    runner = _skill_script._SkillScriptCodeExecutor(Recorder(inputs=[]), 5)
    code = runner._build_wrapper_code(skill_with({"echo.py": "print(1)"}), "echo.py", None)
    assert code is not None
    program = code.rsplit("_materialize_and_run()", 1)[0]  # defined, not yet run
    namespace: dict[str, Any] = {"__name__": "runner"}
    exec(compile(program, "<runner>", "exec"), namespace)
    namespace["_files"] = {escape: "x", "scripts/echo.py": "print(1)"}
    with pytest.raises(PermissionError):
        namespace["_materialize_and_run"]()
    assert not (tmp_path.parent / "escape.txt").exists()
    assert not Path("/tmp/adk-skill-escape.txt").exists()
    assert Path.cwd() == tmp_path  # the working directory is restored


async def test_large_skills_travel_as_an_input_file(
    unsafe_executor: UnsafeLocalCodeExecutor,
) -> None:
    big = skill_with(
        {"count.py": "import pathlib; print(len(pathlib.Path('references/big.md').read_text()))"},
        **{"big.md": "x" * 100_000},
    )
    runner = _skill_script._SkillScriptCodeExecutor(unsafe_executor, 5)
    code_input = runner._build_input(big, "count.py", None)
    assert code_input is not None
    assert [f.name for f in code_input.input_files] == [_skill_script.PAYLOAD_FILE]
    assert "x" * 1000 not in code_input.code
    (answer,) = await run(
        SkillToolset([big], code_executor=unsafe_executor),
        function_call("run_skill_script", {"skill_name": "tools", "file_path": "count.py"}),
    )
    assert answer["stdout"] == "100000\n"
    assert answer["status"] == "success"


def test_arguments_are_built_like_a_command_line() -> None:
    argv = _skill_script.script_argv({"out": "a", "v": True}, {"n": 2}, ["p", 3])
    assert argv == ["--out", "a", "--v", "True", "-n", "2", "--", "p", "3"]
    assert _skill_script.script_argv(["x", 1]) == ["x", "1"]
    assert _skill_script.script_argv(None) == []


SCRIPTS = {
    "main.py": "from helper import word\nprint(word())",
    "helper.py": "def word():\n    return 'from helper'",
    "quiet.py": "import sys; sys.exit(0)",
    "three.py": "import sys; print('partial'); sys.exit(3)",
    "both.sh": "echo out; echo warn >&2",
    "err.sh": "echo bad >&2",
    "slow.sh": "echo started; sleep 30; echo never",  # sleep is a grandchild: killed too
    "slow.py": "import time; time.sleep(30)",
    "bytes.py": "import pathlib; print(list(pathlib.Path('assets/blob.bin').read_bytes()))",
    "argv.sh": 'printf "%s," "$@"',
}


async def test_scripts_report_streams_exit_codes_and_timeouts(
    unsafe_executor: UnsafeLocalCodeExecutor,
) -> None:
    skill = Skill(
        frontmatter=Frontmatter(name="tools", description="Has scripts."),
        instructions="Run them.",
        resources=Resources(
            assets={"blob.bin": b"\x00\x01\xff"},
            scripts={k: Script(src=v) for k, v in SCRIPTS.items()},
        ),
    )
    toolset = SkillToolset([skill], code_executor=unsafe_executor, script_timeout=1)
    calls = [
        {"file_path": "main.py"},
        {"file_path": "quiet.py"},
        {"file_path": "three.py"},
        {"file_path": "both.sh"},
        {"file_path": "err.sh"},
        {"file_path": "slow.sh"},
        {"file_path": "slow.py"},
        {"file_path": "bytes.py"},
        {"file_path": "argv.sh", "short_options": {"n": 1}, "positional_args": ["a b"]},
    ]
    answers = await run(
        toolset, *(function_call("run_skill_script", {"skill_name": "tools", **c}) for c in calls)
    )
    main, quiet, three, both, err, slow_sh, slow_py, binary, argv = answers
    assert (main["status"], main["stdout"]) == ("success", "from helper\n")  # sibling import
    assert (quiet["status"], quiet["stdout"], quiet["stderr"]) == ("success", "", "")
    assert (three["status"], three["stdout"], three["stderr"]) == (
        "error",
        "partial\n",
        "Exit code 3",
    )
    assert (both["status"], both["stdout"], both["stderr"]) == ("warning", "out\n", "warn\n")
    assert (err["status"], err["stderr"]) == ("error", "bad\n")
    assert slow_sh["status"] == "error"
    assert slow_sh["timed_out"] is True
    assert slow_sh["stdout"] == "started\n"
    assert "Exit code" not in slow_sh["stderr"]
    assert slow_py["status"] == "error"
    assert "TimeoutError" in slow_py["stderr"]
    assert binary["stdout"] == "[0, 1, 255]\n"  # binary files are written byte for byte
    assert argv["stdout"] == "-n,1,--,a b,"


class Raising(BaseCodeExecutor):
    error: Any = None

    async def execute_code(
        self, invocation_context: Any, code_execution_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        raise self.error


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (SystemExit(0), {"status": "success"}),
        (SystemExit(None), {"status": "success"}),
        (SystemExit(2), {"error_code": "EXECUTION_ERROR"}),
        (RuntimeError("disk " + "x" * 400), {"error_code": "EXECUTION_ERROR"}),
    ],
)
async def test_an_executor_that_raises_is_reported(error: BaseException, expected: Any) -> None:
    (answer,) = await run(
        SkillToolset([skill_with({"echo.py": ECHO})], code_executor=Raising(error=error)),
        function_call("run_skill_script", {"skill_name": "tools", "file_path": "echo.py"}),
    )
    assert expected.items() <= answer.items()
    if isinstance(error, RuntimeError):
        assert answer["error"].startswith("Failed to execute script 'echo.py': RuntimeError: disk")
        assert answer["error"].endswith("...")
        assert len(answer["error"]) < 300


async def test_bad_script_arguments_never_reach_the_executor() -> None:
    recorder = Recorder(inputs=[])
    answers = await run(
        SkillToolset([skill_with({"echo.py": ECHO})], code_executor=recorder),
        *(
            function_call("run_skill_script", {"skill_name": "tools", "file_path": "echo.py", **a})
            for a in (
                {"args": "text"},
                {"short_options": ["x"]},
                {"positional_args": {"a": 1}},
                {"args": ["x"], "short_options": {"v": 1}},
                {"skill_name": ""},
            )
        ),
    )
    assert [a["error_code"] for a in answers] == ["INVALID_ARGUMENTS"] * 5
    assert "Cannot specify 'short_options' or 'positional_args'" in answers[3]["error"]
    assert recorder.inputs == []
