"""EditFileTool: the model replaces one exact passage of a file in the environment."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.tools._confirm import RequireConfirmation, gate
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.tools.environment._utils import error_type

if TYPE_CHECKING:
    from adk_runtime.environment._base_environment import BaseEnvironment
    from adk_runtime.tools.tool_context import ToolContext

__all__ = ["EditFileTool"]


def _passage(old: str) -> re.Pattern[str]:
    """A pattern of ``old`` as literal text whose line breaks match LF or CRLF."""
    lines = old.replace("\r\n", "\n").split("\n")
    return re.compile("\r?\n".join(re.escape(line) for line in lines))


def _argument_error(args: dict[str, Any]) -> str | None:
    path, old, new = args.get("path"), args.get("old_string"), args.get("new_string", "")
    if not isinstance(path, str) or not path:
        return "`path` is required."
    if not isinstance(old, str) or not old:
        return "`old_string` must not be empty; to create a file use WriteFile."
    if not isinstance(new, str):
        return "`new_string` must be a string."
    return None


class EditFileTool(BaseTool):
    """Replaces a passage that occurs exactly once in an existing file."""

    def __init__(
        self, environment: BaseEnvironment, *, require_confirmation: RequireConfirmation = False
    ) -> None:
        """Edit files of ``environment`` (asking the user first if ``require_confirmation``)."""
        super().__init__(
            name="EditFile",
            description=(
                "Replaces a passage of an existing file with new text. The passage must occur "
                "exactly once in the file. To create a file use WriteFile."
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
                    "old_string": {
                        "type": "string",
                        "description": "The exact text to replace (not empty).",
                    },
                    "new_string": {"type": "string", "description": "The text to put there."},
                },
                "required": ["path", "old_string", "new_string"],
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Make the replacement; its status."""
        invalid = _argument_error(args)
        if invalid is not None:
            return {"status": "error", "error": invalid}
        path, old, new = args["path"], args["old_string"], args.get("new_string", "")
        refused = await gate(self.name, self._require_confirmation, args, tool_context)
        if refused is not None:
            return {"status": "error", **refused}
        try:
            content = (await self._environment.read_file(path)).decode("utf-8")
        except FileNotFoundError:
            return {"status": "error", "error": f"File not found: {path}"}
        except UnicodeDecodeError:
            return {"status": "error", "error": f"{path} is not a UTF-8 text file."}
        except Exception as exc:
            return {"status": "error", "error": str(exc)}
        found = list(_passage(old).finditer(content))
        if not found:
            return {
                "status": "error",
                "error": "`old_string` is not in the file; read the file to check its text.",
            }
        if len(found) > 1:
            return {
                "status": "error",
                "error": f"`old_string` appears {len(found)} times; include more of the "
                "surrounding text so that it occurs once.",
            }
        start, end = found[0].span()
        try:
            await self._environment.write_file(path, content[:start] + new + content[end:])
        except Exception as exc:
            return {"status": "error", "error": str(exc)}
        return {"status": "ok", "message": f"Edited {path}"}

    def _detect_error_in_response(self, response: Any) -> str | None:
        return error_type(response)
