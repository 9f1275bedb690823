"""EditFileTool: the model replaces one exact passage of a file in the environment."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, ClassVar

from adk_runtime.tools.environment._utils import EnvironmentTool, failure, missing_text

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["EditFileTool"]


def _passage(old: str) -> re.Pattern[str]:
    """A pattern of ``old`` as literal text whose line breaks match LF or CRLF."""
    lines = old.replace("\r\n", "\n").split("\n")
    return re.compile("\r?\n".join(re.escape(line) for line in lines))


def _argument_error(args: dict[str, Any]) -> dict[str, Any] | None:
    if (missing := missing_text(args, "path")) is not None:
        return missing
    old, new = args.get("old_string"), args.get("new_string", "")
    if not isinstance(old, str) or not old:
        return failure("`old_string` must not be empty; to create a file use WriteFile.")
    if not isinstance(new, str):
        return failure("`new_string` must be a string.")
    return None


class EditFileTool(EnvironmentTool):
    """Replaces a passage that occurs exactly once in an existing file."""

    TOOL_NAME = "EditFile"
    DESCRIPTION = (
        "Replaces a passage of an existing file with new text. The passage must occur exactly "
        "once in the file. To create a file use WriteFile."
    )
    PARAMETERS: ClassVar[dict[str, Any]] = {
        "path": {"type": "string", "description": "The file's path."},
        "old_string": {"type": "string", "description": "The exact text to replace (not empty)."},
        "new_string": {"type": "string", "description": "The text to put there."},
    }
    REQUIRED = ("path", "old_string", "new_string")

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Make the replacement; its status."""
        if (invalid := _argument_error(args)) is not None:
            return invalid
        path, old, new = args["path"], args["old_string"], args.get("new_string", "")
        if (refused := await self._refused(args, tool_context)) is not None:
            return refused
        try:
            content = (await self._environment.read_file(path)).decode("utf-8")
        except FileNotFoundError:
            return failure(f"File not found: {path}")
        except UnicodeDecodeError:
            return failure(f"{path} is not a UTF-8 text file.")
        except Exception as exc:
            return failure(str(exc))
        found = list(_passage(old).finditer(content))
        if not found:
            return failure("`old_string` is not in the file; read the file to check its text.")
        if len(found) > 1:
            return failure(
                f"`old_string` appears {len(found)} times; include more of the surrounding text "
                "so that it occurs once."
            )
        start, end = found[0].span()
        try:
            await self._environment.write_file(path, content[:start] + new + content[end:])
        except Exception as exc:
            return failure(str(exc))
        return {"status": "ok", "message": f"Edited {path}"}
