"""google-adk's path; the names live in :mod:`adk_runtime.core.tool_context`."""

from adk_runtime.core.tool_context import ToolContext

__all__ = ["ToolContext"]
