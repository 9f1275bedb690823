"""An LLM agent's tools: toolsets resolved per invocation, the request prepared, toolsets closed."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, cast

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.base_toolset import BaseToolset
from adk_runtime.core.readonly_context import ReadonlyContext

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["prepare_request", "request_tools", "resolve_tools"]

logger = logging.getLogger(__name__)


async def resolve_tools(
    entries: list[Any], ctx: ReadonlyContext | None, wrap: Any
) -> list[BaseTool]:
    """The tools of ``entries`` (tools, functions via ``wrap``, toolsets expanded), in order.

    Toolsets are asked concurrently. One that fails is left out and logged as an error (its
    tools are missing from this model call, as in google-adk); the others are kept.
    """
    toolsets = [entry for entry in entries if isinstance(entry, BaseToolset)]
    results = await asyncio.gather(
        *(_tools_of(toolset, ctx) for toolset in toolsets), return_exceptions=False
    )
    expanded = dict(zip((id(t) for t in toolsets), results, strict=True))
    tools: list[BaseTool] = []
    for entry in entries:
        if isinstance(entry, BaseToolset):
            tools.extend(expanded[id(entry)])
        else:
            tools.append(wrap(entry))
    return tools


def request_tools(request: LlmRequest) -> dict[str, BaseTool]:
    """``request.tools_dict`` (the same dict) as the flow runs it: the tools by name.

    ``LlmRequest`` types its tools by the shape it reads (``models._declared_tool``); what
    agents, toolsets and plugins put there is a ``BaseTool``.
    """
    return cast("dict[str, BaseTool]", request.tools_dict)


async def _tools_of(toolset: BaseToolset, ctx: ReadonlyContext | None) -> list[BaseTool]:
    try:
        return await toolset.get_tools_with_prefix(ctx)
    except Exception as exc:
        logger.error(
            "Agent %s runs without the tools of toolset %s, which failed to load: %s: %s",
            ctx.agent_name if ctx is not None else "?",
            type(toolset).__name__,
            type(exc).__name__,
            exc,
        )
        return []


async def prepare_request(
    entries: list[Any], tools: list[BaseTool], tool_context: ToolContext, request: LlmRequest
) -> None:
    """Let each toolset, then each tool, adjust the request (declarations, instructions)."""
    for entry in entries:
        if isinstance(entry, BaseToolset):
            await entry.process_llm_request(tool_context=tool_context, llm_request=request)
    for tool in tools:
        await tool.process_llm_request(tool_context=tool_context, llm_request=request)
