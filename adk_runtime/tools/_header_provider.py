"""``header_provider``: per-call HTTP headers from the invocation (MCP and OpenAPI toolsets)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeAlias

from adk_runtime import _callbacks
from adk_runtime.core.readonly_context import ReadonlyContext

__all__ = ["HeaderProvider", "headers_for"]

HeaderProvider: TypeAlias = Callable[[ReadonlyContext], dict[str, str] | Awaitable[dict[str, str]]]
"""``(readonly_context) -> headers`` for an HTTP server (e.g. the user's token)."""


async def headers_for(
    provider: HeaderProvider | None, context: ReadonlyContext | None
) -> dict[str, str] | None:
    """The headers ``provider`` gives for ``context`` (None without either).

    A synchronous provider runs in a worker thread: it may read a file or call a service.
    """
    if provider is None or context is None:
        return None
    if _callbacks.is_async_callable(provider):
        result = await provider(context)  # type: ignore[misc]
    else:
        result = await asyncio.to_thread(provider, context)
        if inspect.isawaitable(result):
            result = await result
    return dict(result)
