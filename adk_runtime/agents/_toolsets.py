"""An LLM agent's tools: toolsets resolved per invocation, the request prepared, toolsets closed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from adk_runtime.agents.readonly_context import ReadonlyContext
from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.tools.base_toolset import BaseToolset

if TYPE_CHECKING:
    from adk_runtime.agents.base_agent import BaseAgent
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.tools.tool_context import ToolContext

__all__ = ["close_toolsets", "prepare_request", "resolve_tools", "toolsets_of"]

logger = logging.getLogger(__name__)

CLOSE_TIMEOUT_SECONDS = 10.0


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


def toolsets_of(agent: BaseAgent) -> Iterator[BaseToolset]:
    """Every toolset in the agent tree (each once)."""
    seen: set[int] = set()
    stack = [agent]
    while stack:
        current = stack.pop()
        for entry in getattr(current, "tools", None) or []:
            if isinstance(entry, BaseToolset) and id(entry) not in seen:
                seen.add(id(entry))
                yield entry
        stack.extend(reversed(current.sub_agents))


def _closeables(agent: BaseAgent) -> Iterator[Any]:
    """The toolsets of the tree, and instruction providers that hold a connection."""
    yield from toolsets_of(agent)
    stack = [agent]
    while stack:
        current = stack.pop()
        provider = getattr(current, "instruction", None)
        if callable(provider) and callable(getattr(provider, "close", None)):
            yield provider
        stack.extend(current.sub_agents)


async def close_toolsets(agent: BaseAgent, timeout: float = CLOSE_TIMEOUT_SECONDS) -> None:
    """Close every toolset of the tree (and MCP instruction providers).

    One that fails or takes longer than ``timeout`` seconds is logged; the others still close.
    """
    for closeable in _closeables(agent):
        try:
            await asyncio.wait_for(closeable.close(), timeout)
        except Exception as exc:
            logger.warning(
                "Closing %s failed: %s: %s", type(closeable).__name__, type(exc).__name__, exc
            )
