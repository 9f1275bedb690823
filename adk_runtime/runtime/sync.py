"""``Runner.run``: the async loop driven from synchronous code, on a thread of its own."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import AsyncGenerator, Iterator
from contextlib import aclosing

from adk_runtime.events import Event
from adk_runtime.platform.thread import create_thread

__all__ = ["ThreadedRun"]


class _Done:
    pass


class ThreadedRun:
    """Drives an async generator on a private loop in a thread, one item per request."""

    def __init__(self, agen: AsyncGenerator[Event, None]) -> None:
        self._agen = agen
        self._out: queue.Queue[Event | BaseException | _Done] = queue.Queue()
        self._ready = threading.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._demand: asyncio.Queue[None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._finished = False
        context = contextvars.copy_context()  # the caller's span is the turn's parent
        self._thread = create_thread(context.run, self._thread_main)
        self._thread.name, self._thread.daemon = "adk-runner", True
        self._thread.start()
        self._ready.wait()

    def _thread_main(self) -> None:
        asyncio.run(self._main())

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._demand = asyncio.Queue()
        self._task = asyncio.current_task()
        self._ready.set()
        try:
            async with aclosing(self._agen) as events:
                while True:
                    await self._demand.get()
                    try:
                        event = await events.__anext__()
                    except StopAsyncIteration:
                        break
                    self._out.put(event)
        except asyncio.CancelledError:
            pass
        except BaseException as exc:  # re-raised in the caller's thread
            self._out.put(exc)
            return
        self._out.put(_Done())

    def __iter__(self) -> Iterator[Event]:
        assert self._loop is not None
        assert self._demand is not None
        while True:
            self._loop.call_soon_threadsafe(self._demand.put_nowait, None)
            item = self._out.get()
            if isinstance(item, _Done):
                self._finished = True
                return
            if isinstance(item, BaseException):
                self._finished = True
                raise item
            yield item

    def close(self) -> None:
        """Stop the run (if it is still going) and wait for its thread."""
        if not self._finished and self._loop is not None and self._task is not None:
            with contextlib.suppress(RuntimeError):
                self._loop.call_soon_threadsafe(self._task.cancel)
        self._thread.join()
