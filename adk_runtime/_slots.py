"""A bounded number of holders, served first come, first served, for as little as it costs.

Used in front of connection pools (SQL and Redis): their own waits let a newcomer take a
connection just returned ahead of callers already waiting, who then queue again at the back,
so under load a few callers waited many times longer than the rest. Here a freed slot is
handed straight to the first waiter (nobody can overtake it), a free slot costs no
suspension, and a waiter costs one future and one timer (``asyncio.wait_for`` around
``Semaphore.acquire()`` costs a task and more per waiter).
"""

from __future__ import annotations

import asyncio
from collections import deque

__all__ = ["Slots"]


class _Expired(Exception):
    """A waiter's time ran out (never leaves this module)."""


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(_Expired())


class Slots:
    """At most ``count`` holders at once (belongs to the event loop that first waits on it)."""

    def __init__(self, count: int) -> None:
        """Allow ``count`` holders."""
        self._free = count
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def acquire(self, timeout: float) -> bool:
        """Take a slot, waiting up to ``timeout`` seconds in line; False if none came."""
        if self._free > 0 and not self._waiters:
            self._free -= 1
            return True
        loop = asyncio.get_running_loop()
        handed: asyncio.Future[None] = loop.create_future()
        self._waiters.append(handed)
        expiry = loop.call_later(timeout, _expire, handed)
        try:
            await handed
        except _Expired:
            return False
        except asyncio.CancelledError:
            if handed.done() and not handed.cancelled():
                self.release()  # handed over just as the caller was cancelled: pass it on
            raise
        finally:
            expiry.cancel()
        return True

    def release(self) -> None:
        """Give the slot back: to the first waiter still waiting, else to the free count."""
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self._free += 1
