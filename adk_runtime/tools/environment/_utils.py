"""What the environment tools share: their base class, output truncation, error responses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from google.genai import types

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.tools._confirm import RequireConfirmation, gate
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools.environment._constants import MAX_OUTPUT_CHARS

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.environment._base_environment import BaseEnvironment

__all__ = ["EnvironmentTool", "error_type", "failure", "missing_text", "truncate"]


def truncate(text: str, limit: int = MAX_OUTPUT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with a note of its full length when cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n... (truncated, {len(text)} total chars)"


def error_type(response: Any) -> str | None:
    """``"TOOL_ERROR"`` for a response whose status is ``"error"`` (for telemetry)."""
    if isinstance(response, dict) and response.get("status") == "error":
        return "TOOL_ERROR"
    return None


def failure(message: str, **details: Any) -> dict[str, Any]:
    """The response of a call that failed: ``status`` "error", the message, any details."""
    return {"status": "error", "error": message, **details}


def missing_text(args: dict[str, Any], *keys: str) -> dict[str, Any] | None:
    """The failure for the first of ``keys`` whose argument is not a non-empty string."""
    for key in keys:
        value = args.get(key)
        if not isinstance(value, str) or not value:
            return failure(f"`{key}` is required.")
    return None


class EnvironmentTool(BaseTool):
    """A tool working in an environment.

    Its parameters are declared as a JSON schema, a failure is answered as ``{"status":
    "error", ...}`` (reported as a tool error), and the tools that change something ask for
    the user's confirmation first when told to.

    Subclasses set ``TOOL_NAME``, ``DESCRIPTION``, ``PARAMETERS`` (the properties of the
    call's arguments) and ``REQUIRED``.
    """

    TOOL_NAME: ClassVar[str] = ""
    DESCRIPTION: ClassVar[str] = ""
    PARAMETERS: ClassVar[dict[str, Any]] = {}
    REQUIRED: ClassVar[tuple[str, ...]] = ()

    def __init__(
        self, environment: BaseEnvironment, *, require_confirmation: RequireConfirmation = False
    ) -> None:
        """Work in ``environment`` (asking the user first if ``require_confirmation``)."""
        super().__init__(name=self.TOOL_NAME, description=self.DESCRIPTION)
        self._environment = environment
        self._require_confirmation = require_confirmation

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        schema = {"type": "object", "properties": self.PARAMETERS, "required": list(self.REQUIRED)}
        return function_declaration(self.name, self.description, schema)

    async def _refused(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """The failure to answer when the user must confirm the call and has not (else None)."""
        refused = await gate(self.name, self._require_confirmation, args, tool_context)
        return None if refused is None else {"status": "error", **refused}

    def _detect_error_in_response(self, response: Any) -> str | None:
        return error_type(response)
