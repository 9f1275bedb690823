"""``Runner.close``: close what the agent tree holds (toolsets, MCP sessions and servers)."""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from adk_runtime.core.base_agent import BaseAgent

__all__ = ["close_agent_tools"]

logger = logging.getLogger("adk_runtime.runners")

CLOSE_TIMEOUT_SECONDS = 10.0


def _closable_tools(agent: BaseAgent) -> list[Any]:
    """Tools, toolsets and instruction providers of the tree with an async ``close()``.

    Each once (an MCP instruction provider holds a session as a toolset does).
    """
    found: dict[int, Any] = {}
    stack = [agent]
    while stack:
        current = stack.pop()
        tools = getattr(current, "tools", None) or []
        candidates = [*tools, getattr(current, "instruction", None)]
        for candidate in candidates:
            close = getattr(candidate, "close", None)
            if close is not None and inspect.iscoroutinefunction(close):
                found.setdefault(id(candidate), candidate)
        stack.extend(current.sub_agents)
    return list(found.values())


async def close_agent_tools(agent: BaseAgent) -> None:
    """Close every closable tool or toolset of the tree (each within 10 s; failures logged).

    Each ``close()`` runs in a task of its own that the caller's cancellation does not
    reach: a close already started finishes (within its 10 s), so no server process or
    connection is left half closed; the remaining ones are closed too, then the
    cancellation is re-raised.
    """
    cancelled: asyncio.CancelledError | None = None
    for tool in _closable_tools(agent):
        name = type(tool).__name__
        closing = asyncio.ensure_future(asyncio.wait_for(tool.close(), CLOSE_TIMEOUT_SECONDS))
        try:
            try:
                await asyncio.shield(closing)
            except asyncio.CancelledError as exc:
                if closing.cancelled():  # the close cancelled itself: nothing to wait for
                    raise
                cancelled = exc
                await closing  # a second cancellation cancels the close as well
        except asyncio.TimeoutError:
            logger.warning("Closing %s took longer than %s s", name, CLOSE_TIMEOUT_SECONDS)
        except asyncio.CancelledError as exc:
            cancelled = exc
        except Exception as exc:
            logger.error("Closing %s failed: %s", name, type(exc).__name__)
    if cancelled is not None:
        raise cancelled
