"""exit_loop: the tool an agent inside a ``LoopAgent`` calls to end the loop."""

from __future__ import annotations

from adk_runtime.core.tool_context import ToolContext

__all__ = ["exit_loop"]


def exit_loop(tool_context: ToolContext) -> None:
    """Call this when the task is done and the loop should stop; nothing else is needed.

    Args:
        tool_context: Filled in by the runtime.
    """
    tool_context.actions.escalate = True
    tool_context.actions.skip_summarization = True
