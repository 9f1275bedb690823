"""The random number generator code can share and replace per context (``get_random()``).

``set_random_provider(lambda: rng)`` with one seeded ``random.Random`` makes every
``get_random()`` in this context draw from that sequence; the provider is called on each
``get_random()``, so return an existing generator from it rather than a new one each time.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from contextvars import ContextVar

__all__ = ["get_random", "reset_random_provider", "set_random_provider"]

_shared = random.Random()


def _default() -> random.Random:
    return _shared


_provider: ContextVar[Callable[[], random.Random]] = ContextVar(
    "adk_runtime_random_provider", default=_default
)


def set_random_provider(provider: Callable[[], random.Random]) -> None:
    """Use ``provider()`` as the generator in this context (and the tasks it starts).

    Args:
        provider: Returns the ``random.Random`` to draw from.
    """
    _provider.set(provider)


def reset_random_provider() -> None:
    """Go back to the process's shared generator in this context."""
    _provider.set(_default)


def get_random() -> random.Random:
    """The generator of this context's provider."""
    return _provider.get()()
