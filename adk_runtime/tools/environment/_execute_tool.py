"""ExecuteTool: the model runs a shell command in the environment's working directory."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar

from adk_runtime.tools._confirm import RequireConfirmation
from adk_runtime.tools.environment._constants import DEFAULT_TIMEOUT, MAX_OUTPUT_CHARS
from adk_runtime.tools.environment._utils import EnvironmentTool, failure, missing_text, truncate

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.environment._base_environment import BaseEnvironment

__all__ = ["ExecuteTool"]

logger = logging.getLogger(__name__)


class ExecuteTool(EnvironmentTool):
    """Runs a shell command in the environment (at most ``DEFAULT_TIMEOUT`` seconds)."""

    TOOL_NAME = "Execute"
    DESCRIPTION = (
        "Runs a shell command in the environment: programs, tests, builds, searches "
        '(Execute("pytest"), Execute("python3 tool.py"), Execute("find . -name x")). '
        "Not for reading files: use ReadFile rather than cat, head or tail."
    )
    PARAMETERS: ClassVar[dict[str, Any]] = {
        "command": {
            "type": "string",
            "description": "The command line; join dependent commands with &&.",
        }
    }
    REQUIRED = ("command",)

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
        super().__init__(environment, require_confirmation=require_confirmation)
        self._max_output_chars = MAX_OUTPUT_CHARS if max_output_chars is None else max_output_chars

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the command; the status, its output and (on failure) its exit code."""
        if (invalid := missing_text(args, "command")) is not None:
            return invalid
        if (refused := await self._refused(args, tool_context)) is not None:
            return refused
        try:
            result = await self._environment.execute(args["command"], timeout=DEFAULT_TIMEOUT)
        except Exception as exc:
            logger.warning("Execute failed: %s", type(exc).__name__)
            return failure(str(exc))
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
