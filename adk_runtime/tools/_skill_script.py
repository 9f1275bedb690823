"""``run_skill_script``: run a file of a skill's ``scripts/`` through a code executor.

Only an executor the application gave explicitly runs anything: the toolset's
``code_executor``, else the agent's own ``code_executor`` unless that is
``BuiltInCodeExecutor`` (whose code runs on the model's side and cannot see the skill's
files). With neither, the tool answers ``NO_CODE_EXECUTOR`` and runs nothing. adk_runtime's
only local executor, ``UnsafeLocalCodeExecutor``, itself needs
``allow_unsafe_local_execution=True``.

The executor is given one self-contained Python program (:class:`_SkillScriptCodeExecutor`
builds it). The program writes the skill's files into a fresh temporary directory, refusing
any path that would leave it (every path is also checked here first: a skill with such a
path never reaches the executor), moves into that directory and runs the script:

- a ``.py`` script runs inside the program (``runpy``), so the executor's stdout, stderr and
  exit code are the script's; ``script_timeout`` stops it where a ``SIGALRM`` can be armed
  (the main thread of a process), else the executor's own timeout applies;
- a ``.sh`` / ``.bash`` script runs as a ``bash`` child in a session of its own, killed with
  everything it started once ``script_timeout`` passes, and the
  program prints one JSON line (``{"__shell_result__": true, ...}``) carrying the child's
  stdout, stderr and exit code.

The skill's files travel as a Python literal in the program (``repr`` of ``str`` and ``bytes``
values only, so nothing of the skill ever becomes code), or, for a skill too large for a
command line, as the JSON input file :data:`PAYLOAD_FILE`.
"""

from __future__ import annotations

import base64
import json
import logging
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.code_executors.code_execution_utils import (
    CodeExecutionInput,
    CodeExecutionResult,
    File,
)
from adk_runtime.skills import models
from adk_runtime.skills._files import validate_relative_path
from adk_runtime.skills._instruction import RUN_SKILL_SCRIPT
from adk_runtime.skills.errors import UnsafeSkillPathError
from adk_runtime.tools._skill_tools import (
    _SkillTool,
    failure,
    fetch,
    not_found,
    string_arguments,
)

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["PAYLOAD_FILE", "RunSkillScriptTool", "_SkillScriptCodeExecutor", "script_argv"]

logger = logging.getLogger(__name__)

PAYLOAD_FILE = "adk_skill_payload.json"
_INLINE_LIMIT = 64 * 1024
_ERROR_DETAIL_LIMIT = 200
_SHELL_TYPES = ("sh", "bash")

# The program's parts. Placeholders are @NAME@ (no str.format: the code has braces).
_HEAD = r"""
import base64, json, os, subprocess, sys, tempfile
import runpy


def _read_payload(name):
    with open(name, encoding='utf-8') as handle:
        document = json.load(handle)
    return {rel: base64.b64decode(data) if kind == 'b64' else data
            for rel, (kind, data) in document.items()}


_files = @FILES@


def _target(root, rel):
    rel = rel.replace('\\', '/')
    if not rel or os.path.isabs(rel) or os.path.normpath(rel).startswith('..'):
        raise PermissionError('a skill file path leaves the skill directory: %r' % rel)
    target = os.path.realpath(os.path.join(root, os.path.normpath(rel)))
    if target == root or os.path.commonpath([root, target]) != root:
        raise PermissionError('a skill file path leaves the skill directory: %r' % rel)
    return target


def _start_alarm(seconds):
    import signal, threading
    if not hasattr(signal, 'SIGALRM') or threading.current_thread() is not threading.main_thread():
        return None
    pending = signal.alarm(0)
    if pending:  # the process already has an alarm of its own: leave it alone
        signal.alarm(pending)
        return None
    def _expired(signum, frame):
        raise TimeoutError('the script ran longer than %s s and was stopped' % seconds)
    previous = signal.signal(signal.SIGALRM, _expired)
    signal.alarm(seconds)
    return previous


def _stop_alarm(previous):
    if previous is not None:
        import signal
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _materialize_and_run():
    home, argv, path = os.getcwd(), list(sys.argv), list(sys.path)
    with tempfile.TemporaryDirectory(prefix='adk-skill-') as work:
        root = os.path.realpath(work)
        written = set()
        for rel, content in _files.items():
            target = _target(root, rel)
            if target in written:
                raise PermissionError('two skill files share the path %r' % rel)
            written.add(target)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, 'wb') as handle:
                handle.write(content if isinstance(content, bytes) else content.encode('utf-8'))
        os.chdir(root)
        try:
@BODY@
        finally:
            os.chdir(home)
            sys.argv[:] = argv
            sys.path[:] = path


_materialize_and_run()
"""

_PYTHON_BODY = r"""
            alarm = _start_alarm(@TIMEOUT@)
            try:
                sys.argv = @ARGV@
                sys.path.insert(0, os.path.dirname(os.path.abspath(@SCRIPT@)))
                runpy.run_path(@SCRIPT@, run_name='__main__')
            except SystemExit as stop:
                if stop.code not in (None, 0):
                    raise
            finally:
                _stop_alarm(alarm)
"""

_SHELL_BODY = r"""
            command = @ARGV@
            child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL, encoding='utf-8',
                                     errors='replace', cwd=root,
                                     start_new_session=hasattr(os, 'killpg'))
            try:
                out, err = child.communicate(timeout=@TIMEOUT@)
                result = dict(stdout=out, stderr=err, returncode=child.returncode)
            except subprocess.TimeoutExpired:
                if hasattr(os, 'killpg'):
                    os.killpg(child.pid, 9)  # the script and everything it started
                else:
                    child.kill()
                out, _ = child.communicate()
                result = dict(stdout=out or '', returncode=-1, timeout=True,
                              stderr='Timed out: the script ran longer than @TIMEOUT@ s.')
            result['__shell_result__'] = True
            print('\n' + json.dumps(result))
"""


def script_argv(
    args: dict[str, Any] | list[Any] | None,
    short_options: dict[str, Any] | None = None,
    positional_args: list[Any] | None = None,
) -> list[str]:
    """The script's command-line arguments, as google-adk builds them.

    A list ``args`` is the whole command line. Otherwise ``--key value`` per long option,
    ``-k value`` per short option (values as ``str(value)``, so ``True`` gives ``"True"``),
    then ``--`` and the positional arguments.
    """
    if isinstance(args, list):
        return [str(a) for a in args]
    argv: list[str] = []
    for key, value in (args or {}).items():
        argv += [f"--{key}", str(value)]
    for key, value in (short_options or {}).items():
        argv += [f"-{key}", str(value)]
    if positional_args:
        argv += ["--", *(str(a) for a in positional_args)]
    return argv


def _skill_files(skill: models.Skill) -> dict[str, str | bytes]:
    """Every file of the skill by its path in the skill directory (empty files included).

    Raises:
        UnsafeSkillPathError: A name would leave its folder.
    """
    resources = skill.resources
    files: dict[str, str | bytes] = {}
    for name in resources.list_references():
        content = resources.get_reference(name)
        if content is not None:
            files[f"references/{validate_relative_path(name)}"] = content
    for name in resources.list_assets():
        content = resources.get_asset(name)
        if content is not None:
            files[f"assets/{validate_relative_path(name)}"] = content
    for name in resources.list_scripts():
        script = resources.get_script(name)
        if script is not None and script.src is not None:
            files[f"scripts/{validate_relative_path(name)}"] = script.src
    return files


def _extension(path: str) -> str:
    return path.rsplit(".", 1)[-1].lower() if "." in path.rsplit("/", 1)[-1] else ""


class _SkillScriptCodeExecutor:
    """Builds the program that runs one skill script, runs it, and reads its outcome."""

    def __init__(self, base_executor: BaseCodeExecutor, script_timeout: int) -> None:
        """Run through ``base_executor``; shell scripts get ``script_timeout`` seconds."""
        self._base_executor = base_executor
        self._script_timeout = script_timeout

    def _build_wrapper_code(
        self,
        skill: models.Skill,
        file_path: str,
        script_args: dict[str, Any] | list[Any] | None,
        short_options: dict[str, Any] | None = None,
        positional_args: list[Any] | None = None,
    ) -> str | None:
        """The program's source, or None for a script type that cannot run.

        Raises:
            UnsafeSkillPathError: The script or a file of the skill has a path leaving it.
        """
        code_input = self._build_input(
            skill, file_path, script_args, short_options, positional_args
        )
        return code_input.code if code_input is not None else None

    def _build_input(
        self,
        skill: models.Skill,
        file_path: str,
        script_args: dict[str, Any] | list[Any] | None,
        short_options: dict[str, Any] | None = None,
        positional_args: list[Any] | None = None,
    ) -> CodeExecutionInput | None:
        name = validate_relative_path(file_path.removeprefix("scripts/"))
        extension = _extension(name)
        if extension == "py":
            body = _PYTHON_BODY
            command = [f"scripts/{name}"]
        elif extension in _SHELL_TYPES:
            body = _SHELL_BODY
            command = ["bash", f"scripts/{name}"]
        else:
            return None
        command += script_argv(script_args, short_options, positional_args)
        body = (
            body.replace("@ARGV@", repr(command))
            .replace("@SCRIPT@", repr(f"scripts/{name}"))
            .replace("@TIMEOUT@", repr(_timeout_seconds(self._script_timeout)))
        )
        files = _skill_files(skill)
        literal = repr(files)
        input_files: list[File] = []
        if len(literal) > _INLINE_LIMIT:
            document = {
                path: ["b64", base64.b64encode(c).decode("ascii")]
                if isinstance(c, bytes)
                else ["text", c]
                for path, c in files.items()
            }
            input_files.append(
                File(name=PAYLOAD_FILE, content=json.dumps(document), mime_type="application/json")
            )
            literal = f"_read_payload({PAYLOAD_FILE!r})"
        code = _HEAD.replace("@BODY@", body.strip("\n")).replace("@FILES@", literal, 1)
        return CodeExecutionInput(code=code, input_files=input_files)

    async def execute_script_async(
        self,
        invocation_context: Any,
        skill: models.Skill,
        file_path: str,
        script_args: dict[str, Any] | list[Any] | None,
        short_options: dict[str, Any] | None = None,
        positional_args: list[Any] | None = None,
    ) -> dict[str, Any]:
        """Run the script; answer with its stdout, stderr and status, or a failure."""
        try:
            code_input = self._build_input(
                skill, file_path, script_args, short_options, positional_args
            )
        except UnsafeSkillPathError:
            return failure(
                "EXECUTION_ERROR",
                f"Refused to run {file_path!r}: a file of skill {skill.name!r} has a path "
                "leaving the skill directory.",
            )
        if code_input is None:
            kind = f"'.{_extension(file_path)}'" if _extension(file_path) else "(no extension)"
            return failure(
                "UNSUPPORTED_SCRIPT_TYPE",
                f"Unsupported script type {kind}: only .py, .sh and .bash scripts run.",
            )
        try:
            result = await self._base_executor.execute_code(invocation_context, code_input)
        except SystemExit as stop:
            if stop.code in (None, 0):
                return _answer(skill.name, file_path, "", "", "success")
            return failure(
                "EXECUTION_ERROR",
                f"Failed to execute script {file_path!r}: exited with code {stop.code}.",
            )
        except Exception as exc:
            logger.warning(
                "Skill script %r of %r failed to run: %s", file_path, skill.name, type(exc).__name__
            )
            detail = str(exc)
            if len(detail) > _ERROR_DETAIL_LIMIT:
                detail = detail[:_ERROR_DETAIL_LIMIT] + "..."
            return failure(
                "EXECUTION_ERROR",
                f"Failed to execute script {file_path!r}: {type(exc).__name__}: {detail}",
            )
        return _outcome(skill.name, file_path, _extension(file_path) in _SHELL_TYPES, result)


def _timeout_seconds(value: Any) -> int:
    try:
        return max(1, int(value))
    except (TypeError, ValueError):
        return 1


def _answer(
    skill_name: str, file_path: str, stdout: str, stderr: str, status: str
) -> dict[str, Any]:
    return {
        "skill_name": skill_name,
        "file_path": file_path,
        "stdout": stdout,
        "stderr": stderr,
        "status": status,
    }


def _shell_envelope(stdout: str) -> dict[str, Any] | None:
    """The program's JSON line about the shell child (the last one), or None."""
    candidates = [stdout.strip(), *(line.strip() for line in reversed(stdout.splitlines()))]
    for line in candidates:
        if not (line.startswith("{") and line.endswith("}")):
            continue
        try:
            parsed = json.loads(line)
        except ValueError:
            continue
        if isinstance(parsed, dict) and parsed.get("__shell_result__"):
            return parsed
    return None


def _outcome(
    skill_name: str, file_path: str, is_shell: bool, result: CodeExecutionResult
) -> dict[str, Any]:
    """The answer for a run: the script's streams, its exit code noted, and a status.

    ``error`` for a non-zero exit, a timeout, or stderr without stdout; ``warning`` for stderr
    with stdout; else ``success``.
    """
    stdout, stderr = str(result.stdout or ""), str(result.stderr or "")
    code = result.exit_code if isinstance(result.exit_code, int) else None
    timed_out = False
    if is_shell:
        envelope = _shell_envelope(stdout)
        if envelope is None:
            logger.warning("No shell result line in the output of %r of %r.", file_path, skill_name)
            code = None  # the program's own code says nothing about the script's
        else:
            stdout = str(envelope.get("stdout") or "")
            stderr = str(envelope.get("stderr") or "")
            returned = envelope.get("returncode")
            code = returned if isinstance(returned, int) else None
            timed_out = bool(envelope.get("timeout"))
    if code not in (None, 0) and not timed_out:
        stderr = f"{stderr.rstrip()}\nExit code {code}" if stderr else f"Exit code {code}"
    if timed_out or code not in (None, 0) or (stderr and not stdout):
        status = "error"
    elif stderr:
        status = "warning"
    else:
        status = "success"
    answer = _answer(skill_name, file_path, stdout, stderr, status)
    if timed_out:
        answer["timed_out"] = True
    return answer


def _arguments_problems(args: dict[str, Any]) -> list[str]:
    script_args = args.get("args")
    short, positional = args.get("short_options"), args.get("positional_args")
    problems: list[str] = []
    if script_args is not None and not isinstance(script_args, (dict, list)):
        problems.append(
            f"'args' must be an object or a list of strings, not {type(script_args).__name__}."
        )
    if short is not None and not isinstance(short, dict):
        problems.append(f"'short_options' must be an object, not {type(short).__name__}.")
    if positional is not None and not isinstance(positional, list):
        problems.append(
            f"'positional_args' must be a list of strings, not {type(positional).__name__}."
        )
    if isinstance(script_args, list) and (short or positional):
        problems.append(
            "Cannot specify 'short_options' or 'positional_args' with a list 'args': the "
            "list is the whole command line."
        )
    return problems


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
        arguments = string_arguments(args, "skill_name", "file_path")
        if isinstance(arguments, dict):
            return arguments
        skill_name, file_path = arguments
        problems = _arguments_problems(args)
        if problems:
            return failure("INVALID_ARGUMENTS", "\n".join(problems))
        skill = await fetch(self._toolset, skill_name, tool_context.invocation_id)
        if isinstance(skill, dict):
            return skill
        if skill.resources.get_script(file_path.removeprefix("scripts/")) is None:
            return not_found(tool_context, "script", skill_name, file_path, "scripts")
        executor = self._toolset._executor_for(tool_context)
        if executor is None:
            return failure(
                "NO_CODE_EXECUTOR",
                "No code executor is configured to run skill scripts: give SkillToolset (or "
                "the agent) a code_executor.",
            )
        runner = _SkillScriptCodeExecutor(executor, self._toolset._script_timeout)
        return await runner.execute_script_async(
            tool_context._invocation_context,
            skill,
            file_path,
            args.get("args"),
            args.get("short_options"),
            args.get("positional_args"),
        )

    def _detect_error_in_response(self, response: Any) -> str | None:
        """The error code of a failed answer or a failed script (for telemetry), or None."""
        code = super()._detect_error_in_response(response)
        if code is None and isinstance(response, dict) and response.get("status") == "error":
            return "SKILL_SCRIPT_EXECUTION_ERROR"
        return code
