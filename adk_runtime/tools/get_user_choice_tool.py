"""``get_user_choice``: the model offers options and the user's pick comes back later.

A long-running tool: the call returns nothing, so the invocation pauses after the model's
call (no summary of it is asked from the model). The client shows the options and answers
with a ``FunctionResponse`` of the call's id holding the choice; the Runner resumes the
paused invocation with it, on any replica.
"""

from __future__ import annotations

from adk_runtime.core.tool_context import ToolContext
from adk_runtime.tools.long_running_tool import LongRunningFunctionTool

__all__ = ["get_user_choice", "get_user_choice_tool"]


def get_user_choice(options: list[str], tool_context: ToolContext) -> str | None:
    """Show the user these options and wait for the one they choose."""
    del options  # shown by the client from the call's arguments
    tool_context.actions.skip_summarization = True
    return None


get_user_choice_tool = LongRunningFunctionTool(func=get_user_choice)
