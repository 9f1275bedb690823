"""``google.adk.tools.tool_confirmation`` → here: a tool call's confirmation by the user."""

from adk_runtime.events.tool_confirmation import ToolConfirmation

__all__ = ["ToolConfirmation"]
