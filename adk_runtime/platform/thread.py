"""The threads the runtime starts (``Runner.run``'s event-loop thread) are made here."""

from __future__ import annotations

import threading
from collections.abc import Callable

__all__ = ["create_thread"]


def create_thread(
    target: Callable[..., object], *args: object, **kwargs: object
) -> threading.Thread:
    """A new, unstarted thread that will call ``target(*args, **kwargs)``.

    Args:
        target: What the thread runs.
        *args: Positional arguments for ``target``.
        **kwargs: Keyword arguments for ``target``.
    """
    return threading.Thread(target=target, args=args, kwargs=kwargs)
