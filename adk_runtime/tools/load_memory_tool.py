"""load_memory: a tool the model calls to search the user's memories."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from adk_runtime.core.tool_context import ToolContext
from adk_runtime.memory.base import MemoryEntry
from adk_runtime.tools.function_tool import FunctionTool

if TYPE_CHECKING:
    from google.genai import types

    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["LoadMemoryResponse", "LoadMemoryTool", "load_memory", "load_memory_tool"]


class LoadMemoryResponse(BaseModel):
    """What ``load_memory`` returns to the model: the matching memories, best first."""

    memories: list[MemoryEntry] = Field(default_factory=list)


async def load_memory(query: str, tool_context: ToolContext) -> dict[str, Any]:
    """Search the memory of past conversations with this user.

    Args:
        query: Words to look for in past conversations.
        tool_context: Filled in by the runtime.

    Returns:
        The matching memories, best first.
    """
    response = await tool_context.search_memory(query)
    result = LoadMemoryResponse(memories=response.memories)
    return result.model_dump(mode="json", exclude_none=True)


class LoadMemoryTool(FunctionTool):
    """Offers ``load_memory`` and tells the model it has a memory to search."""

    def __init__(self) -> None:
        """Wrap :func:`load_memory`."""
        super().__init__(load_memory)

    def _build_declaration(self) -> types.FunctionDeclaration:
        """The function's declaration, without the schema titles (``query`` says it all)."""
        declaration = super()._build_declaration()
        schema = declaration.parameters_json_schema
        if isinstance(schema, dict):
            properties = {
                name: {k: v for k, v in prop.items() if k != "title"}
                for name, prop in schema.get("properties", {}).items()
            }
            untitled = {k: v for k, v in schema.items() if k != "title"}
            declaration.parameters_json_schema = {**untitled, "properties": properties}
        return declaration

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Add a hint about the memory, then offer the tool."""
        llm_request.append_instructions(
            [
                "You can recall past conversations with this user: call `load_memory` with a "
                "query when an answer may depend on something said before."
            ]
        )
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)


load_memory_tool = LoadMemoryTool()
