"""WriteFileTool: the model creates or rewrites a file in the environment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.tools._confirm import RequireConfirmation, gate
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.tools.environment._utils import error_type

if TYPE_CHECKING:
    from adk_runtime.environment._base_environment import BaseEnvironment
    from adk_runtime.tools.tool_context import ToolContext

__all__ = ["WriteFileTool"]


class WriteFileTool(BaseTool):
    """Creates or replaces a whole file in the environment."""

    def __init__(
        self, environment: BaseEnvironment, *, require_confirmation: RequireConfirmation = False
    ) -> None:
        """Write files of ``environment`` (asking the user first if ``require_confirmation``)."""
        super().__init__(
            name="WriteFile",
            description=(
                "Creates a file in the environment, or replaces all of an existing one. For a "
                "small change to an existing file use EditFile."
            ),
        )
        self._environment = environment
        self._require_confirmation = require_confirmation

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return function_declaration(
            self.name,
            self.description,
            {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The file's path."},
                    "content": {"type": "string", "description": "All of its new content."},
                },
                "required": ["path", "content"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Write the file; its status."""
        path, content = args.get("path"), args.get("content", "")
        if not isinstance(path, str) or not path:
            return {"status": "error", "error": "`path` is required."}
        if not isinstance(content, str):
            return {"status": "error", "error": "`content` must be a string."}
        refused = await gate(self.name, self._require_confirmation, args, tool_context)
        if refused is not None:
            return {"status": "error", **refused}
        try:
            await self._environment.write_file(path, content)
        except Exception as exc:
            return {"status": "error", "error": str(exc)}
        return {"status": "ok", "message": f"Wrote {path}"}

    def _detect_error_in_response(self, response: Any) -> str | None:
        return error_type(response)
