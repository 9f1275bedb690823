"""The thread pools sync tools run on when ``RunConfig.tool_thread_pool_config`` is set."""

from __future__ import annotations

import asyncio
import weakref
from concurrent.futures import ThreadPoolExecutor

from adk_runtime.agents.run_config import ToolThreadPoolConfig

__all__ = ["pool_for"]

# One pool per event loop and size; a loop's pools are shut down when the loop is collected.
_pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, ThreadPoolExecutor]] = (
    weakref.WeakKeyDictionary()
)


def pool_for(config: ToolThreadPoolConfig | None) -> ThreadPoolExecutor | None:
    """The running loop's pool of ``config.max_workers`` threads (None without a config)."""
    if config is None:
        return None
    loop = asyncio.get_running_loop()
    pools = _pools.get(loop)
    if pools is None:
        pools = _pools[loop] = {}
        weakref.finalize(loop, _shut_down, pools)
    pool = pools.get(config.max_workers)
    if pool is None:
        pool = pools[config.max_workers] = ThreadPoolExecutor(
            max_workers=config.max_workers, thread_name_prefix="adk-runtime-tool"
        )
    return pool


def _shut_down(pools: dict[int, ThreadPoolExecutor]) -> None:
    for pool in pools.values():
        pool.shutdown(wait=False)
