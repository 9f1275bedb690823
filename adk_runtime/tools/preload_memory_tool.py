"""preload_memory: put the memories matching the user's message into the instruction."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.tool_context import ToolContext

if TYPE_CHECKING:
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["PreloadMemoryTool", "preload_memory_tool"]


class PreloadMemoryTool(BaseTool):
    """Searches the memory with the user's message before each model call.

    The model is not offered a function; the matching memories are added to the system
    instruction instead.
    """

    def __init__(self) -> None:
        """Create the tool."""
        super().__init__(
            name="preload_memory", description="Adds relevant memories to the instruction."
        )

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Add the memories that match the user's message to the instruction."""
        content = tool_context.user_content
        if content is None or not content.parts:
            return
        query = " ".join(part.text for part in content.parts if part.text)
        if not query.strip():
            return
        response = await tool_context.search_memory(query)
        lines: list[str] = []
        for memory in response.memories:
            text = " ".join(p.text for p in memory.content.parts or [] if p.text)
            if not text:
                continue
            when = f"[{memory.timestamp}] " if memory.timestamp else ""
            lines.append(f"{when}{memory.author or 'unknown'}: {text}")
        if not lines:
            return
        llm_request.append_instructions(
            [
                "Excerpts of earlier conversations with this user that may help with the "
                "current message:\n<PAST_CONVERSATIONS>\n"
                + "\n".join(lines)
                + "\n</PAST_CONVERSATIONS>"
            ]
        )


preload_memory_tool = PreloadMemoryTool()
