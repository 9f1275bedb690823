"""ExecuteBashTool: the model runs a command in a workspace directory, once the user approves.

Every call pauses for the user's confirmation (``tool_context.request_confirmation``, stored
with the session, so the approval survives a restart); the command runs only when the user
approved that very call. A :class:`BashToolPolicy` can limit the commands and the resources
they may use.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import os
import pathlib
import shlex
from types import ModuleType
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.environment._process import collect, started
from adk_runtime.tools._declaration import function_declaration

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["BashToolPolicy", "ExecuteBashTool"]

logger = logging.getLogger(__name__)


def _resource_module() -> ModuleType | None:
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows has no resource limits
        return None
    return resource


_resource = _resource_module()

_NEEDS_CONFIRMATION = "Running this command requires confirmation; approve or reject it."
_REJECTED = "This tool call is rejected."


@dataclasses.dataclass(frozen=True)
class BashToolPolicy:
    """Which commands ``execute_bash`` may run, and with what resources.

    ``allowed_command_prefixes`` compares whole words of the command line as the shell would
    split them: ``("ls",)`` allows ``ls -la`` but not ``lsof`` or ``./ls``; ``("git status",)``
    allows only that subcommand; ``("*",)`` (the default) allows every command. Commands run
    without a shell, so ``|``, ``;``, ``$(`` reach the program as plain arguments; list such
    strings in ``blocked_operators`` to refuse any command containing them.

    Attributes:
        allowed_command_prefixes: Allowed command prefixes, or ``("*",)`` for any.
        blocked_operators: Substrings that make a command refused.
        timeout_seconds: Seconds before the command's process group is killed (None: no limit).
        max_memory_bytes: The address-space limit of the command (``RLIMIT_AS``).
        max_file_size_bytes: The largest file it may write (``RLIMIT_FSIZE``).
        max_child_processes: ``RLIMIT_NPROC`` (counted over all of the user's processes).
        max_output_bytes: How much of each of stdout and stderr is kept and returned; the rest
            is read and dropped.
    """

    allowed_command_prefixes: tuple[str, ...] = ("*",)
    blocked_operators: tuple[str, ...] = ()
    timeout_seconds: int | None = 30
    max_memory_bytes: int | None = None
    max_file_size_bytes: int | None = None
    max_child_processes: int | None = None
    max_output_bytes: int = 64 * 1024

    def __post_init__(self) -> None:
        for prefix in self.allowed_command_prefixes:
            if _split(prefix) is None:
                logger.warning(
                    "An allowed_command_prefixes entry cannot be parsed; it allows nothing."
                )


def _split(command: str) -> list[str] | None:
    try:
        return shlex.split(command)
    except ValueError:
        return None


def _validate_command(command: str, policy: BashToolPolicy) -> str | None:
    """Why ``policy`` refuses ``command``, or None when it may run."""
    if not command.strip():
        return "Command is required."
    for operator in policy.blocked_operators:
        if operator in command:
            return f"Command contains blocked operator: {operator}"
    if "*" in policy.allowed_command_prefixes:
        return None
    words = _split(command)
    if words is None:
        return "The command cannot be parsed (unbalanced quotes?)."
    for prefix in policy.allowed_command_prefixes:
        allowed = _split(prefix)
        if allowed and words[: len(allowed)] == allowed:
            return None
    permitted = ", ".join(policy.allowed_command_prefixes) or "<none>"
    return f"Command blocked. Permitted prefixes are: {permitted}"


def _set_resource_limits(policy: BashToolPolicy) -> None:
    """Apply ``policy``'s limits; runs in the child process before the command starts.

    A limit that cannot be set raises, and the command does not run.
    """
    if _resource is None:  # pragma: no cover - Windows
        return
    limits = [
        (_resource.RLIMIT_CORE, 0),
        (_resource.RLIMIT_AS, policy.max_memory_bytes),
        (_resource.RLIMIT_FSIZE, policy.max_file_size_bytes),
        (_resource.RLIMIT_NPROC, policy.max_child_processes),
    ]
    for kind, value in limits:
        if value is not None:
            _resource.setrlimit(kind, (value, value))


class ExecuteBashTool(BaseTool):
    """Runs a command (no shell) in ``workspace`` after the user approves the call.

    Args:
        workspace: The command's working directory (default: the current directory).
        policy: The allowed commands and resource limits (default: any command, 30 seconds).
    """

    def __init__(
        self, *, workspace: pathlib.Path | None = None, policy: BashToolPolicy | None = None
    ) -> None:
        """Run commands in ``workspace`` under ``policy``."""
        policy = policy or BashToolPolicy()
        if "*" in policy.allowed_command_prefixes:
            allowed = "any command"
        else:
            listed = ", ".join(policy.allowed_command_prefixes) or "<none>"
            allowed = f"commands starting with one of: {listed}"
        super().__init__(
            name="execute_bash",
            description=(
                "Runs a command with the workspace as its working directory and returns its "
                f"output. Allowed: {allowed}. The user must approve every command first."
            ),
        )
        self._workspace = workspace if workspace is not None else pathlib.Path.cwd()
        self._policy = policy

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return function_declaration(
            self.name,
            self.description,
            {
                "type": "object",
                "properties": {"command": {"type": "string", "description": "The command."}},
                "required": ["command"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Check the command, ask for (or read) the user's confirmation, then run it."""
        command = args.get("command")
        if not isinstance(command, str) or not command:
            return {"error": "Command is required."}
        refused = _validate_command(command, self._policy)
        argv = _split(command) if refused is None else None
        if refused is not None or not argv:
            return {"error": refused or "The command cannot be parsed (unbalanced quotes?)."}
        confirmation = tool_context.tool_confirmation
        if confirmation is None:
            tool_context.request_confirmation(
                hint=f"Approve or reject running this command: {command}"
            )
            tool_context.actions.skip_summarization = True
            return {"error": _NEEDS_CONFIRMATION}
        if not confirmation.confirmed:
            return {"error": _REJECTED}
        if os.name != "posix":
            return {"error": "ExecuteBashTool runs only on POSIX systems."}
        return await self._run(argv)

    async def _run(self, argv: list[str]) -> dict[str, Any]:
        try:
            process = await started(
                asyncio.create_subprocess_exec(
                    *argv,
                    cwd=str(self._workspace),
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    start_new_session=True,
                    preexec_fn=functools.partial(_set_resource_limits, self._policy),
                )
            )
        except Exception as exc:
            logger.warning("execute_bash could not start a command: %s", type(exc).__name__)
            return {"error": f"Execution failed: {exc}"}
        output = await collect(
            process, timeout=self._policy.timeout_seconds, limit=self._policy.max_output_bytes
        )
        result: dict[str, Any] = {
            "stdout": output.stdout,
            "stderr": output.stderr,
            "returncode": output.returncode,
        }
        if output.timed_out:
            logger.info("execute_bash killed a command after %ss.", self._policy.timeout_seconds)
            return {
                "error": f"Command timed out after {self._policy.timeout_seconds} seconds.",
                **result,
            }
        return result

    def _detect_error_in_response(self, response: Any) -> str | None:
        if isinstance(response, dict) and response.get("error"):
            return "TOOL_ERROR"
        return None
