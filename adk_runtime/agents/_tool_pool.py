"""The thread pools sync tools run on when ``RunConfig.tool_thread_pool_config`` is set."""

from __future__ import annotations

import asyncio
import threading
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from adk_runtime import _callbacks
from adk_runtime.core.run_config import ToolThreadPoolConfig

if TYPE_CHECKING:
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["pool_for", "pool_of_size", "pools", "pools_lock", "run_tool"]

# One pool per event loop and size; a loop's pools are shut down when the loop is collected.
pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, ThreadPoolExecutor]] = (
    weakref.WeakKeyDictionary()
)
# Loops running on other threads reach the registry at the same time.
pools_lock = threading.Lock()


def pool_for(config: ToolThreadPoolConfig | None) -> ThreadPoolExecutor | None:
    """The running loop's pool of ``config.max_workers`` threads (None without a config)."""
    if config is None:
        return None
    return pool_of_size(config.max_workers)


def pool_of_size(max_workers: int) -> ThreadPoolExecutor:
    """The running loop's pool of ``max_workers`` threads, made on first use.

    Raises:
        RuntimeError: No event loop is running.
    """
    loop = asyncio.get_running_loop()
    with pools_lock:
        _release_closed_loops()
        loop_pools = pools.get(loop)
        if loop_pools is None:
            loop_pools = pools[loop] = {}
            weakref.finalize(loop, _shut_down, loop_pools)
        pool = loop_pools.get(max_workers)
        if pool is None:
            pool = loop_pools[max_workers] = ThreadPoolExecutor(
                max_workers=max_workers, thread_name_prefix="adk-runtime-tool"
            )
        return pool


async def run_tool(
    tool: BaseTool,
    args: dict[str, Any],
    tool_context: ToolContext,
    pool: ThreadPoolExecutor | None,
) -> Any:
    """Run ``tool``; the sync callables it runs go to ``pool`` (None: asyncio's default).

    Async tools stay on the event loop, where the session, artifact and memory services
    the tool context reaches are bound.
    """
    with _callbacks.sync_calls_on(pool):
        return await tool.run_async(args=args, tool_context=tool_context)


def _release_closed_loops() -> None:
    """Shut down the pools of loops that are closed but not collected yet (held by a traceback)."""
    for closed in [loop for loop in pools if loop.is_closed()]:
        _shut_down(pools.pop(closed, {}))


def _shut_down(loop_pools: dict[int, ThreadPoolExecutor]) -> None:
    for pool in loop_pools.values():
        pool.shutdown(wait=False)
