"""``BaseRetrievalTool``: a tool the model calls with one ``query`` string."""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.tools._declaration import function_declaration

__all__ = ["BaseRetrievalTool"]

_QUERY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What to look up in the documents."},
    },
    "required": ["query"],
}


class BaseRetrievalTool(BaseTool):
    """A tool that looks something up: the model calls it with a ``query`` string.

    Subclasses implement ``run_async``. Finding nothing is an answer, not an error: say so in
    the result, so that the model can go on with the turn.
    """

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        return function_declaration(self.name, self.description, _QUERY_SCHEMA)
