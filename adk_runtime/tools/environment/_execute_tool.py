"""ExecuteTool: the model runs a shell command in the environment's working directory."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.tools._confirm import RequireConfirmation, gate
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.tools.environment._constants import DEFAULT_TIMEOUT, MAX_OUTPUT_CHARS
from adk_runtime.tools.environment._utils import error_type, truncate

if TYPE_CHECKING:
    from adk_runtime.environment._base_environment import BaseEnvironment
    from adk_runtime.tools.tool_context import ToolContext

__all__ = ["ExecuteTool"]

logger = logging.getLogger(__name__)

_DESCRIPTION = (
    "Runs a shell command in the environment: programs, tests, builds, searches "
    '(Execute("pytest"), Execute("python3 tool.py"), Execute("find . -name x")). '
    "Not for reading files: use ReadFile rather than cat, head or tail."
)


class ExecuteTool(BaseTool):
    """Runs a shell command in the environment (at most ``DEFAULT_TIMEOUT`` seconds)."""

    def __init__(
        self,
        environment: BaseEnvironment,
        *,
        max_output_chars: int | None = None,
        require_confirmation: RequireConfirmation = False,
    ) -> None:
        """Run commands in ``environment``.

        Args:
            environment: Where commands run.
            max_output_chars: Characters of each output stream returned to the model.
            require_confirmation: Ask the user before each command (or a predicate of the
                call's arguments saying when).
        """
        super().__init__(name="Execute", description=_DESCRIPTION)
        self._environment = environment
        self._max_output_chars = MAX_OUTPUT_CHARS if max_output_chars is None else max_output_chars
        self._require_confirmation = require_confirmation

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return function_declaration(
            self.name,
            self.description,
            {
                "type": "object",
                "properties": {
                    "command": {
                        "type": "string",
                        "description": "The command line; join dependent commands with &&.",
                    }
                },
                "required": ["command"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the command; the status, its output and (on failure) its exit code."""
        command = args.get("command")
        if not isinstance(command, str) or not command:
            return {"status": "error", "error": "`command` is required."}
        refused = await gate(self.name, self._require_confirmation, args, tool_context)
        if refused is not None:
            return {"status": "error", **refused}
        try:
            result = await self._environment.execute(command, timeout=DEFAULT_TIMEOUT)
        except Exception as exc:
            logger.warning("Execute failed: %s", type(exc).__name__)
            return {"status": "error", "error": str(exc)}
        response: dict[str, Any] = {"status": "ok"}
        if result.stdout:
            response["stdout"] = truncate(result.stdout, self._max_output_chars)
        if result.stderr:
            response["stderr"] = truncate(result.stderr, self._max_output_chars)
        if result.exit_code != 0:
            response.update(status="error", exit_code=result.exit_code)
        if result.timed_out:
            response.update(status="error", error=f"Command timed out after {DEFAULT_TIMEOUT}s.")
        return response

    def _detect_error_in_response(self, response: Any) -> str | None:
        return error_type(response)
