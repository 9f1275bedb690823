"""LongRunningFunctionTool: a function whose final answer arrives later."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from google.genai import types

from adk_runtime.tools.function_tool import FunctionTool

__all__ = ["LongRunningFunctionTool"]

_NOTE = (
    "NOTE: This is a long-running operation; it answers later. If it already returned a "
    "pending or intermediate status, do not call it again for the same request."
)


class LongRunningFunctionTool(FunctionTool):
    """A function tool whose call pauses the invocation.

    The function starts the work and may return an intermediate result (e.g. a ticket id);
    the function-call event records the call id in ``long_running_tool_ids`` and the
    invocation stops there. The caller later sends a message carrying a
    ``FunctionResponse`` with the same id; ``Runner.run_async`` routes it to the agent that
    made the call and resumes the same invocation.
    """

    def __init__(self, func: Callable[..., Any]) -> None:
        """Wrap ``func``."""
        super().__init__(func)
        self.is_long_running = True

    def _build_declaration(self) -> types.FunctionDeclaration:
        declaration = super()._build_declaration()
        description = declaration.description or ""
        declaration.description = f"{description}\n\n{_NOTE}".strip()
        return declaration
