"""New unique ids: event, invocation, function-call and session ids come from here.

``set_id_provider(...)`` makes ids reproducible in this context (a test's counter, a replay's
recorded ids); ``reset_id_provider()`` goes back to random UUIDs. A provider must return a
new id on every call: a session id already taken is refused (``AlreadyExistsError``), but an
event whose id is already stored in its session is taken for a retry of that event (appends
are idempotent by event id), so the store keeps the first one and the second is not stored.
"""

from __future__ import annotations

import uuid as _uuid
from collections.abc import Callable
from contextvars import ContextVar

__all__ = ["new_uuid", "reset_id_provider", "set_id_provider"]


def _random_id() -> str:
    return str(_uuid.uuid4())


_provider: ContextVar[Callable[[], str]] = ContextVar("adk_runtime_id_provider", default=_random_id)


def set_id_provider(provider: Callable[[], str]) -> None:
    """Use ``provider()`` for every new id in this context (and the tasks it starts).

    Args:
        provider: Returns a new, unique id string on each call.
    """
    _provider.set(provider)


def reset_id_provider() -> None:
    """Go back to random UUID4 strings in this context."""
    _provider.set(_random_id)


def new_uuid() -> str:
    """A new id from this context's provider (a random UUID4 string by default)."""
    return _provider.get()()
