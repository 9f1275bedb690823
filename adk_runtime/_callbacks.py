"""Calling user callbacks: async ones on the loop, sync ones in a worker thread."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def is_async_callable(func: Callable[..., Any]) -> bool:
    """Return True when calling ``func`` returns a coroutine without blocking."""
    if inspect.iscoroutinefunction(func):
        return True
    call = getattr(func, "__call__", None)  # noqa: B004 - async __call__ on instances
    return call is not None and inspect.iscoroutinefunction(call)


async def invoke(func: Callable[..., Any], /, **kwargs: Any) -> Any:
    """Call ``func(**kwargs)``; a sync function runs in a worker thread, never on the loop."""
    if is_async_callable(func):
        return await func(**kwargs)
    result = await asyncio.to_thread(func, **kwargs)
    if inspect.isawaitable(result):
        result = await result
    return result


def as_list(callbacks: T | Sequence[T] | None) -> list[T]:
    """Normalize a callback or a list of callbacks to a list."""
    if callbacks is None:
        return []
    if isinstance(callbacks, (list, tuple)):
        return list(callbacks)
    return [callbacks]  # type: ignore[list-item]
