"""``run_skill_script``: run a file of a skill's ``scripts/`` through a code executor.

Only an executor the application gave explicitly runs anything: the toolset's
``code_executor``, else the agent's own ``code_executor`` unless that is
``BuiltInCodeExecutor`` (whose code runs on the model's side and cannot see the skill's
files). With neither, the tool answers ``NO_CODE_EXECUTOR`` and runs nothing. adk_runtime's
only local executor, ``UnsafeLocalCodeExecutor``, itself needs
``allow_unsafe_local_execution=True``.

The executor is given one self-contained Python program: it writes the skill's files into a
fresh temporary directory (refusing any path that would leave it), then runs the script as a
child process (``.py`` with this Python, ``.sh`` / ``.bash`` with ``bash``) with a timeout,
and prints one JSON line carrying the child's stdout, stderr and exit code.
"""

from __future__ import annotations

import base64
import json
import logging
import secrets
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.code_executors.code_execution_utils import CodeExecutionInput, File
from adk_runtime.skills import models
from adk_runtime.skills._files import validate_relative_path
from adk_runtime.skills._instruction import RUN_SKILL_SCRIPT
from adk_runtime.skills.errors import UnsafeSkillPathError
from adk_runtime.tools._skill_tools import _SkillTool, failure, fetch

if TYPE_CHECKING:
    from adk_runtime.tools.tool_context import ToolContext

__all__ = ["RunSkillScriptTool", "build_runner_code", "script_argv"]

logger = logging.getLogger(__name__)

_INTERPRETERS = {"py": "python", "sh": "bash", "bash": "bash"}
_MARKER = "__adk_skill_script_result__"
PAYLOAD_FILE = "adk_skill_payload.json"
_INLINE_LIMIT = 64 * 1024

# The program the executor runs. Its only input is a JSON document: a Python string literal
# made with repr, or (for a large skill, past the command-line limits of a child process) the
# input file PAYLOAD_FILE. Nothing of the skill ever becomes code of this program.
_RUNNER = r"""
import base64, json, os, subprocess, sys, tempfile

PAYLOAD = json.loads({payload})

def _place(root, rel):
    if os.path.isabs(rel) or os.path.normpath(rel).startswith('..'):
        raise PermissionError('a skill file path leaves the skill directory')
    target = os.path.realpath(os.path.join(root, rel))
    if os.path.commonpath([root, target]) != root or target == root:
        raise PermissionError('a skill file path leaves the skill directory')
    return target

with tempfile.TemporaryDirectory(prefix='adk-skill-') as work:
    root = os.path.realpath(work)
    for rel, (kind, data) in PAYLOAD['files'].items():
        target = _place(root, rel)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        content = base64.b64decode(data) if kind == 'b64' else data.encode('utf-8')
        with open(target, 'wb') as handle:
            handle.write(content)
    script = _place(root, PAYLOAD['script'])
    program = sys.executable if PAYLOAD['interpreter'] == 'python' else 'bash'
    try:
        done = subprocess.run(
            [program, script, *PAYLOAD['argv']], cwd=root, capture_output=True,
            stdin=subprocess.DEVNULL, timeout=PAYLOAD['timeout'],
        )
        result = dict(stdout=done.stdout.decode('utf-8', 'replace'),
                      stderr=done.stderr.decode('utf-8', 'replace'),
                      returncode=done.returncode, timed_out=False)
    except subprocess.TimeoutExpired:
        result = dict(stdout='', stderr='The script did not finish in time and was stopped.',
                      returncode=-1, timed_out=True)
    print(PAYLOAD['marker'] + json.dumps(result))
"""


def script_argv(
    args: dict[str, Any] | list[Any] | None,
    short_options: dict[str, Any] | None = None,
    positional_args: list[Any] | None = None,
) -> list[str]:
    """The script's command-line arguments.

    ``--key value`` per long option (``--flag`` for True, nothing for False or None), then
    ``-k value`` per short option, then the positional ones; a list ``args`` is used as it is.
    """
    if isinstance(args, list):
        return [str(a) for a in args]
    argv: list[str] = []
    for prefix, options in (("--", args or {}), ("-", short_options or {})):
        for key, value in options.items():
            if value is False or value is None:
                continue
            argv.append(f"{prefix}{key}")
            if value is not True:
                argv.append(str(value))
    argv += [str(a) for a in positional_args or []]
    return argv


def _skill_files(skill: models.Skill) -> dict[str, list[str]]:
    """Every file of the skill by path in the skill directory, as ``[kind, data]``."""
    files: dict[str, list[str]] = {}
    groups: list[tuple[str, dict[str, str | bytes]]] = [
        (
            "references",
            {n: skill.resources.get_reference(n) or "" for n in skill.resources.list_references()},
        ),
        ("assets", {n: skill.resources.get_asset(n) or "" for n in skill.resources.list_assets()}),
        (
            "scripts",
            {n: str(skill.resources.get_script(n) or "") for n in skill.resources.list_scripts()},
        ),
    ]
    for folder, contents in groups:
        for name, content in contents.items():
            path = f"{folder}/{validate_relative_path(name)}"
            if isinstance(content, bytes):
                files[path] = ["b64", base64.b64encode(content).decode("ascii")]
            else:
                files[path] = ["text", content]
    return files


def build_runner_code(
    skill: models.Skill, script_path: str, argv: list[str], timeout: int, marker: str
) -> CodeExecutionInput:
    """The input that runs ``scripts/<script_path>`` of ``skill`` (see the module docstring).

    Raises:
        UnsafeSkillPathError: A file of the skill has a path leaving its directory.
        ValueError: The script's type is not ``.py``, ``.sh`` or ``.bash``.
    """
    extension = script_path.rsplit(".", 1)[-1].lower() if "." in script_path else ""
    if extension not in _INTERPRETERS:
        raise ValueError(extension)
    payload = {
        "files": _skill_files(skill),
        "script": f"scripts/{validate_relative_path(script_path)}",
        "interpreter": _INTERPRETERS[extension],
        "argv": argv,
        "timeout": timeout,
        "marker": marker,
    }
    document = json.dumps(payload)
    if len(document) <= _INLINE_LIMIT:
        return CodeExecutionInput(code=_RUNNER.replace("{payload}", repr(document)))
    source = f"open({PAYLOAD_FILE!r}, encoding='utf-8').read()"
    return CodeExecutionInput(
        code=_RUNNER.replace("{payload}", source),
        input_files=[File(name=PAYLOAD_FILE, content=document, mime_type="application/json")],
    )


def _arguments_problem(args: dict[str, Any]) -> str | None:
    script_args, short, positional = (
        args.get("args"),
        args.get("short_options"),
        args.get("positional_args"),
    )
    if script_args is not None and not isinstance(script_args, (dict, list)):
        return "'args' must be an object or a list of strings."
    if short is not None and not isinstance(short, dict):
        return "'short_options' must be an object."
    if positional is not None and not isinstance(positional, list):
        return "'positional_args' must be a list of strings."
    if isinstance(script_args, list) and (short or positional):
        return "Give 'short_options' and 'positional_args' only when 'args' is an object."
    return None


class RunSkillScriptTool(_SkillTool):
    """``run_skill_script``: run a skill's script through the application's code executor."""

    TOOL_NAME = RUN_SKILL_SCRIPT
    DESCRIPTION = "Runs a script of a skill's scripts/ folder and returns its output."

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        strings = {"type": "array", "items": {"type": "string"}}
        return types.FunctionDeclaration(
            name=self.name,
            description=self.description,
            parameters_json_schema={
                "type": "object",
                "properties": {
                    "skill_name": {"type": "string", "description": "The skill's name."},
                    "file_path": {
                        "type": "string",
                        "description": "The script's path, e.g. 'scripts/report.py'.",
                    },
                    "args": {
                        "anyOf": [{"type": "object"}, strings],
                        "description": "Long options as an object ({'out': 'a.txt'} gives "
                        "--out a.txt), or the whole argument list as strings.",
                    },
                    "short_options": {
                        "type": "object",
                        "description": "Single-hyphen options as an object (not with a list "
                        "'args').",
                    },
                    "positional_args": {
                        **strings,
                        "description": "Positional arguments (not with a list 'args').",
                    },
                },
                "required": ["skill_name", "file_path"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the script; answer with its stdout, stderr and status."""
        skill_name, file_path = args.get("skill_name"), args.get("file_path")
        if not isinstance(skill_name, str) or not isinstance(file_path, str):
            return failure(
                "INVALID_ARGUMENTS", "Arguments 'skill_name' and 'file_path' are required."
            )
        problem = _arguments_problem(args)
        if problem is not None:
            return failure("INVALID_ARGUMENTS", problem)
        skill = await fetch(self._toolset, skill_name, tool_context.invocation_id)
        if isinstance(skill, dict):
            return skill
        name = file_path.removeprefix("scripts/")
        if skill.resources.get_script(name) is None:
            return _script_not_found(tool_context, skill_name, file_path)
        executor = self._toolset._executor_for(tool_context)
        if executor is None:
            return failure(
                "NO_CODE_EXECUTOR",
                "No code executor is configured to run skill scripts: give SkillToolset (or "
                "the agent) a code_executor.",
            )
        argv = script_argv(args.get("args"), args.get("short_options"), args.get("positional_args"))
        return await self._run(executor, tool_context, skill, name, argv)

    async def _run(
        self,
        executor: BaseCodeExecutor,
        tool_context: ToolContext,
        skill: models.Skill,
        name: str,
        argv: list[str],
    ) -> dict[str, Any]:
        marker = f"{_MARKER}{secrets.token_hex(8)}:"
        try:
            code_input = build_runner_code(skill, name, argv, self._toolset._script_timeout, marker)
        except UnsafeSkillPathError:
            return failure("EXECUTION_ERROR", "A file of the skill has an unsafe path.")
        except ValueError:
            return failure(
                "UNSUPPORTED_SCRIPT_TYPE",
                f"Cannot run {name!r}: supported script types are .py, .sh and .bash.",
            )
        try:
            result = await executor.execute_code(tool_context.invocation_context, code_input)
        except Exception as exc:
            logger.warning(
                "Skill script %r of %r failed to run: %s", name, skill.name, type(exc).__name__
            )
            return failure("EXECUTION_ERROR", f"Running {name!r} failed ({type(exc).__name__}).")
        return _answer(skill.name, f"scripts/{name}", marker, result.stdout, result.stderr)


def _answer(
    skill_name: str, file_path: str, marker: str, stdout: str, stderr: str
) -> dict[str, Any]:
    envelope: dict[str, Any] | None = None
    for line in reversed(stdout.splitlines()):
        if line.startswith(marker):
            envelope = json.loads(line[len(marker) :])
            break
    if envelope is None:  # the runner itself failed before the script ran
        answer = failure("EXECUTION_ERROR", "The script could not be started.")
        answer["stderr"] = stderr[-2000:]
        return answer
    out, err, code = envelope["stdout"], envelope["stderr"], envelope["returncode"]
    status = "success"
    if code != 0:
        status = "error"
        err = f"{err.rstrip()}\nExit code {code}".lstrip()
    elif err:
        status = "warning"
    answer = {
        "skill_name": skill_name,
        "file_path": file_path,
        "stdout": out,
        "stderr": err,
        "status": status,
    }
    if envelope.get("timed_out"):
        answer["timed_out"] = True
    return answer


def _script_not_found(tool_context: ToolContext, skill_name: str, file_path: str) -> dict[str, Any]:
    key = f"temp:_adk_skill_script_not_found_count_{tool_context.invocation_id}"
    count = int(tool_context.state.get(key) or 0) + 1
    tool_context.state[key] = count
    message = f"Skill {skill_name!r} has no script {file_path!r}."
    if count > 1:
        return failure(
            "SCRIPT_NOT_FOUND_FATAL",
            f"{message} That is {count} missing scripts in this turn: stop trying paths and "
            "tell the user.",
        )
    return failure("SCRIPT_NOT_FOUND", message)
