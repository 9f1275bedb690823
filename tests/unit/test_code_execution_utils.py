"""CodeExecutionUtils, CodeExecutorContext on a State, and the local executor's result contract."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

import pytest
from google.genai import types

from adk_runtime.code_executors import (
    CodeExecutionInput,
    CodeExecutionResult,
    CodeExecutionUtils,
    CodeExecutorContext,
    File,
    UnsafeLocalCodeExecutor,
)
from adk_runtime.errors import ConfigurationError
from adk_runtime.sessions.state import State

_FENCES = [("```tool_code\n", "\n```"), ("```python\n", "\n```")]


def _content(*parts: types.Part) -> types.Content:
    return types.Content(role="model", parts=list(parts))


def test_the_earliest_block_is_extracted_and_the_rest_dropped() -> None:
    content = _content(
        types.Part(text="Plan.\n```python\nb = 2\n```"),
        types.Part(text="then\n```tool_code\nc = 3\n```"),
        types.Part(function_call=types.FunctionCall(name="f")),
    )
    assert CodeExecutionUtils.extract_code_and_truncate_content(content, _FENCES) == "b = 2"
    assert content.parts == [
        types.Part(text="Plan.\n"),
        CodeExecutionUtils.build_executable_code_part("b = 2"),
    ]


def test_thoughts_unclosed_and_empty_blocks_are_not_code() -> None:
    thought = types.Part(text="```python\nx = 1\n```", thought=True)
    for content in [
        _content(thought),
        _content(types.Part(text="```python\n" + "x = 1\n" * 10_000)),
        _content(types.Part(text="```python\n\n```")),
    ]:
        before = content.model_copy(deep=True)
        assert CodeExecutionUtils.extract_code_and_truncate_content(content, _FENCES) is None
        assert content == before


def test_an_unanswered_executable_code_part_is_the_code() -> None:
    answered = CodeExecutionUtils.build_code_execution_result_part(CodeExecutionResult("1\n"))
    content = _content(
        CodeExecutionUtils.build_executable_code_part("print(1)"),
        answered,
        CodeExecutionUtils.build_executable_code_part("print(2)"),
        types.Part(text="after"),
    )
    assert CodeExecutionUtils.extract_code_and_truncate_content(content, _FENCES) == "print(2)"
    assert content.parts is not None
    assert len(content.parts) == 3


def test_result_parts_say_ok_or_failed() -> None:
    ok = CodeExecutionUtils.build_code_execution_result_part(
        CodeExecutionResult(stdout="4\n", output_files=[File("a.png", b"x", "image/png")])
    )
    assert ok.code_execution_result == types.CodeExecutionResult(
        outcome=types.Outcome.OUTCOME_OK, output="4\n\nFiles saved as artifacts: `a.png`"
    )
    failed = CodeExecutionUtils.build_code_execution_result_part(
        CodeExecutionResult(stdout="partial", stderr="Traceback", exit_code=1)
    )
    assert failed.code_execution_result == types.CodeExecutionResult(
        outcome=types.Outcome.OUTCOME_FAILED, output="partial\nTraceback"
    )
    silent = CodeExecutionUtils.build_code_execution_result_part(CodeExecutionResult(exit_code=3))
    assert silent.code_execution_result is not None
    assert silent.code_execution_result.outcome == types.Outcome.OUTCOME_FAILED


def test_code_execution_parts_become_fenced_text() -> None:
    code = _content(types.Part(text="hi"), CodeExecutionUtils.build_executable_code_part("x=1"))
    CodeExecutionUtils.convert_code_execution_parts(code, _FENCES[1], ("<out>", "</out>"))
    assert code.parts == [types.Part(text="hi"), types.Part(text="```python\nx=1\n```")]
    result = _content(CodeExecutionUtils.build_code_execution_result_part(CodeExecutionResult("2")))
    CodeExecutionUtils.convert_code_execution_parts(result, _FENCES[1], ("<out>", "</out>"))
    assert result == types.Content(role="user", parts=[types.Part(text="<out>2</out>")])


def test_file_content_is_base64_once() -> None:
    encoded = base64.b64encode(b"\x00\xffdata")
    assert CodeExecutionUtils.get_encoded_file_content(b"\x00\xffdata") == encoded
    assert CodeExecutionUtils.get_encoded_file_content(encoded) == encoded


def test_the_context_writes_copies_into_the_state_delta() -> None:
    committed = {"_code_executor_input_files": [{"name": "a", "content": "x", "mime_type": "t"}]}
    delta: dict[str, object] = {}
    context = CodeExecutorContext(State(committed, delta))
    assert delta == {}
    context.add_input_files([File("b", b"\x01")])
    context.add_processed_file_names(["a"])
    context.increment_error_count("inv")
    context.increment_error_count("inv")
    context.reset_error_count("other")
    context.update_code_execution_result("inv", "print(1)", "1\n", "")
    assert committed["_code_executor_input_files"] == [
        {"name": "a", "content": "x", "mime_type": "t"},
        {"name": "b", "content": b"\x01", "mime_type": "text/plain"},
    ]
    assert delta["_code_executor_input_files"] == committed["_code_executor_input_files"]
    assert delta["_code_execution_context"] == {"processed_input_files": ["a"]}
    assert delta["_code_executor_error_counts"] == {"inv": 2}
    assert context.get_error_count("inv") == 2
    assert context.get_state_delta() == {
        "_code_execution_context": {"processed_input_files": ["a"]}
    }
    context.clear_input_files()
    assert context.get_input_files() == []
    assert context.get_processed_file_names() == []


def test_reading_a_context_never_changes_the_loaded_values() -> None:
    loaded = {"processed_input_files": ["a"]}
    state = {"_code_execution_context": loaded, "_code_executor_error_counts": {"i": 1}}
    context = CodeExecutorContext(state)
    context.add_processed_file_names(["b"])
    context.increment_error_count("i")
    assert loaded == {"processed_input_files": ["a"]}
    assert state["_code_execution_context"] == {"processed_input_files": ["a", "b"]}
    assert state["_code_executor_error_counts"] == {"i": 2}


@pytest.fixture
def local() -> UnsafeLocalCodeExecutor:
    with pytest.warns(UserWarning, match="UnsafeLocalCodeExecutor runs code"):
        return UnsafeLocalCodeExecutor(allow_unsafe_local_execution=True, timeout_seconds=2)


async def _run(executor: UnsafeLocalCodeExecutor, code: str) -> CodeExecutionResult:
    return await executor.execute_code(None, CodeExecutionInput(code=code))  # type: ignore[arg-type]


async def test_a_run_fails_by_its_exit_status_not_by_warnings(
    local: UnsafeLocalCodeExecutor,
) -> None:
    warned = await _run(local, "import sys\nprint('é')\nprint('just a warning', file=sys.stderr)")
    assert (warned.stdout, warned.exit_code, warned.failed) == ("é\n", 0, False)
    assert warned.stderr == "just a warning\n"  # kept as written
    ok = CodeExecutionUtils.build_code_execution_result_part(warned).code_execution_result
    assert ok is not None
    assert (ok.outcome, ok.output) == (types.Outcome.OUTCOME_OK, "é\n")
    silent = await _run(local, "import os\nos._exit(4)")
    assert (silent.stderr, silent.exit_code, silent.failed) == ("", 4, True)
    told = CodeExecutionUtils.build_code_execution_result_part(silent).code_execution_result
    assert told is not None
    assert told.outcome == types.Outcome.OUTCOME_FAILED
    assert told.output == "The code exited with status 4."
    # an executor that reports no exit status is judged by stderr, as google-adk does
    assert CodeExecutionResult(stderr="Traceback ...").failed
    assert not CodeExecutionResult(stdout="fine").failed


async def test_a_timeout_kills_what_the_code_started(
    local: UnsafeLocalCodeExecutor, tmp_path: Path
) -> None:
    marker = tmp_path / "late"
    child = f"import time, pathlib; time.sleep(3); pathlib.Path({str(marker)!r}).write_text('x')"
    code = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {child!r}])\n"
        "time.sleep(30)"
    )
    result = await _run(local, code)
    assert result.failed
    assert "did not finish within 2 s" in result.stderr
    await asyncio.sleep(1.5)  # past the grandchild's own sleep
    assert not marker.exists()


def test_unsupported_options_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="optimize_data_file"):
        UnsafeLocalCodeExecutor(allow_unsafe_local_execution=True, optimize_data_file=True)


async def test_input_files_are_bytes_base64_or_text(local: UnsafeLocalCodeExecutor) -> None:
    raw = bytes(range(256))
    files = [
        File(name="raw.bin", content=raw),
        File(name="b64.bin", content=base64.b64encode(raw).decode("ascii")),
        File(name="table.csv", content="a,b\n1,2\n", mime_type="text/csv"),
    ]
    assert [f.as_bytes() for f in files] == [raw, raw, b"a,b\n1,2\n"]
    code = (
        "import pathlib\n"
        "print(pathlib.Path('raw.bin').read_bytes() == pathlib.Path('b64.bin').read_bytes()"
        " == bytes(range(256)))\n"
        "print(pathlib.Path('table.csv').read_text(), end='')"
    )
    result = await local.execute_code(None, CodeExecutionInput(code=code, input_files=files))  # type: ignore[arg-type]
    assert (result.stdout, result.exit_code) == ("True\na,b\n1,2\n", 0)
