"""ReadFileTool: the model reads a file of the environment, with line numbers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from adk_runtime.tools.environment._constants import MAX_OUTPUT_CHARS
from adk_runtime.tools.environment._utils import EnvironmentTool, failure, missing_text, truncate

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.environment._base_environment import BaseEnvironment

__all__ = ["ReadFileTool"]


def _line_number_error(args: dict[str, Any]) -> dict[str, Any] | None:
    for key in ("start_line", "end_line"):
        value = args.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            return failure(f"`{key}` must be an integer if provided.")
    return None


def _numbered(data: bytes, start_line: int | None, end_line: int | None) -> dict[str, Any]:
    """The lines ``start_line``..``end_line`` (1-based, inclusive) of ``data``, numbered."""
    lines = data.splitlines(keepends=True)
    total = len(lines)
    start, end = max(1, start_line or 1), min(total, end_line or total)
    if total and start > total:
        return failure(
            f"`start_line` {start} is past the end of the file ({total} lines).",
            total_lines=total,
        )
    if total and start > end:
        return failure(f"`start_line` ({start}) is after `end_line` ({end}).", total_lines=total)
    text = "".join(
        f"{number:6d}\t{line.decode('utf-8', errors='replace')}"
        for number, line in enumerate(lines[start - 1 : end], start=start)
    )
    result: dict[str, Any] = {"status": "ok", "content": text}
    if start > 1 or end < total:
        result["total_lines"] = total
    return result


class ReadFileTool(EnvironmentTool):
    """Reads a file (or a range of its lines) with line numbers."""

    TOOL_NAME = "ReadFile"
    DESCRIPTION = "Reads a file of the environment, or some of its lines, each line numbered."
    PARAMETERS: ClassVar[dict[str, Any]] = {
        "path": {"type": "string", "description": "The file's path."},
        "start_line": {
            "type": "integer",
            "description": "The first line to show (counting from 1; default 1).",
        },
        "end_line": {
            "type": "integer",
            "description": "The last line to show (default: the last line).",
        },
    }
    REQUIRED = ("path",)

    def __init__(self, environment: BaseEnvironment, *, max_output_chars: int | None = None):
        """Read files of ``environment``, returning at most ``max_output_chars`` characters."""
        super().__init__(environment)
        self._max_output_chars = MAX_OUTPUT_CHARS if max_output_chars is None else max_output_chars

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """The file's numbered lines, or the error."""
        invalid = missing_text(args, "path") or _line_number_error(args)
        if invalid is not None:
            return invalid
        path = args["path"]
        try:
            data = await self._environment.read_file(path)
        except FileNotFoundError:
            return failure(f"File not found: {path}")
        except Exception as exc:
            return failure(str(exc))
        result = _numbered(data, args.get("start_line"), args.get("end_line"))
        if result["status"] == "ok":
            result["content"] = truncate(result["content"], self._max_output_chars)
        return result
