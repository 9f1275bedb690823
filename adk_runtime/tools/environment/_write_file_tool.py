"""WriteFileTool: the model creates or rewrites a file in the environment."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from adk_runtime.tools.environment._utils import EnvironmentTool, failure, missing_text

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["WriteFileTool"]


class WriteFileTool(EnvironmentTool):
    """Creates or replaces a whole file in the environment."""

    TOOL_NAME = "WriteFile"
    DESCRIPTION = (
        "Creates a file in the environment, or replaces all of an existing one. For a small "
        "change to an existing file use EditFile."
    )
    PARAMETERS: ClassVar[dict[str, Any]] = {
        "path": {"type": "string", "description": "The file's path."},
        "content": {"type": "string", "description": "All of its new content."},
    }
    REQUIRED = ("path", "content")

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Write the file; its status."""
        if (invalid := missing_text(args, "path")) is not None:
            return invalid
        path, content = args["path"], args.get("content", "")
        if not isinstance(content, str):
            return failure("`content` must be a string.")
        if (refused := await self._refused(args, tool_context)) is not None:
            return refused
        try:
            await self._environment.write_file(path, content)
        except Exception as exc:
            return failure(str(exc))
        return {"status": "ok", "message": f"Wrote {path}"}
