"""Tools whose one argument is a list of names, shown to the model in the next request.

``load_artifacts`` and ``load_mcp_resource`` answer a call at once (acknowledging the names)
and put the named contents into the following model request only, never into the session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.tools._declaration import function_declaration

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["NamesTool", "names_of"]


def names_of(value: Any) -> list[str] | None:
    """``value`` as a list of names, or None when it is not a sequence of strings."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        return None
    if not all(isinstance(name, str) for name in value):
        return None
    return list(value)


class NamesTool(BaseTool):
    """A tool called with ``{parameter: [names]}`` whose contents reach the next request.

    Args:
        name: The tool's name.
        parameter: The name of its one argument (a list of strings).
        things: What the names name, for the model (e.g. ``"artifacts"``).
    """

    def __init__(self, *, name: str, parameter: str, things: str) -> None:
        """Create the tool."""
        super().__init__(
            name=name,
            description=(
                f"Shows you the contents of {things} by name, in your next step only. Call it "
                f"whenever you need to read {things} (their names are listed in your "
                "instructions)."
            ),
        )
        self._parameter = parameter
        self._status = (
            f"The {things} are attached to this step only; call {name} again to read them "
            "in a later one."
        )

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return function_declaration(
            self.name,
            self.description,
            {
                "type": "object",
                "properties": {self._parameter: {"type": "array", "items": {"type": "string"}}},
            },
        )

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Acknowledge the names; the contents go into the next request."""
        names = names_of(args.get(self._parameter, []))
        if names is None:
            return {
                "error": f"'{self._parameter}' must be a list of strings.",
                "error_code": "INVALID_ARGUMENTS",
            }
        return {self._parameter: names, "status": self._status}
