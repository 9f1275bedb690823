"""The current time (seconds since the epoch) the runtime stamps on events.

``set_time_provider(lambda: 1_700_000_000.0)`` makes every event created in this context
carry that timestamp; ``reset_time_provider()`` goes back to the system clock.
"""

from __future__ import annotations

import time as _system_time
from collections.abc import Callable
from contextvars import ContextVar

__all__ = ["get_time", "reset_time_provider", "set_time_provider"]

_provider: ContextVar[Callable[[], float]] = ContextVar(
    "adk_runtime_time_provider", default=_system_time.time
)


def set_time_provider(provider: Callable[[], float]) -> None:
    """Use ``provider()`` as the current time in this context (and the tasks it starts).

    Args:
        provider: Returns seconds since the epoch; called each time the runtime needs the time.
    """
    _provider.set(provider)


def reset_time_provider() -> None:
    """Go back to the system clock in this context."""
    _provider.set(_system_time.time)


def get_time() -> float:
    """The current time in seconds since the epoch, from this context's provider."""
    return _provider.get()()
