"""Calling user callbacks: async ones on the loop, sync ones in a worker thread."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
from collections.abc import Awaitable, Callable, Iterator, Sequence
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any, TypeVar

T = TypeVar("T")

_executor: contextvars.ContextVar[Executor | None] = contextvars.ContextVar(
    "adk_runtime_sync_executor", default=None
)


@contextmanager
def sync_calls_on(executor: Executor | None) -> Iterator[None]:
    """Run the sync callables :func:`invoke` calls in this block on ``executor``.

    None keeps asyncio's default executor (``asyncio.to_thread``).
    """
    token = _executor.set(executor)
    try:
        yield
    finally:
        _executor.reset(token)


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
    executor = _executor.get()
    if executor is None:
        result = await asyncio.to_thread(func, **kwargs)
    else:  # as to_thread does, the call sees this task's context variables
        call = functools.partial(contextvars.copy_context().run, func, **kwargs)
        result = await asyncio.get_running_loop().run_in_executor(executor, call)
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


async def first_answer(plugged: Awaitable[Any], callbacks: Any, /, **kwargs: Any) -> Any:
    """What the step's plugins answered (``plugged``), else the first non-None of ``callbacks``.

    The Runner's plugins run first; a value from one skips the agent's callbacks of the step.
    Each callback is called with ``kwargs``; None when nobody answers.
    """
    answer = await plugged
    if answer is not None:
        return answer
    for callback in as_list(callbacks):
        answer = await invoke(callback, **kwargs)
        if answer is not None:
            return answer
    return None
