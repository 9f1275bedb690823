"""State: a session's key/value state with scope prefixes and delta tracking."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = ["State", "split_state_delta"]


class State:
    """A view over a session's state that records every write in a delta.

    Reads see the delta first, then the committed value. A write goes to both: it is visible at
    once (a dirty read inside the invocation) and becomes durable only when the event carrying
    the delta is committed.

    Key prefixes choose the scope: ``app:`` (every user and session of the app), ``user:``
    (every session of one user), ``temp:`` (this invocation only, never stored); a key without
    a prefix belongs to the session.
    """

    APP_PREFIX = "app:"
    USER_PREFIX = "user:"
    TEMP_PREFIX = "temp:"

    def __init__(self, value: dict[str, Any], delta: dict[str, Any]) -> None:
        """Create a view over ``value`` (the session's state) that records writes in ``delta``."""
        self._value = value
        self._delta = delta

    def __getitem__(self, key: str) -> Any:
        if key in self._delta:
            return self._delta[key]
        return self._value[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._value[key] = value
        self._delta[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self._value or key in self._delta

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())

    def __repr__(self) -> str:
        return f"State({self.to_dict()!r})"

    def get(self, key: str, default: Any = None) -> Any:
        """Return the value of ``key``, or ``default`` when it is not set."""
        if key in self._delta:
            return self._delta[key]
        return self._value.get(key, default)

    def setdefault(self, key: str, default: Any = None) -> Any:
        """Return the value of ``key``, first writing ``default`` when it is not set."""
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, delta: Mapping[str, Any]) -> None:
        """Write every key of ``delta``."""
        for key, value in delta.items():
            self[key] = value

    def has_delta(self) -> bool:
        """Return True when something was written through this view."""
        return bool(self._delta)

    def to_dict(self) -> dict[str, Any]:
        """Return the merged state (committed value overlaid with the delta)."""
        merged = dict(self._value)
        merged.update(self._delta)
        return merged


def split_state_delta(
    delta: Mapping[str, Any],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Split a delta by scope.

    Returns:
        ``(session, app, user, temp)``: the session-scoped keys as they are, the ``app:`` and
        ``user:`` keys without their prefix, and the ``temp:`` keys as they are.
    """
    session: dict[str, Any] = {}
    app: dict[str, Any] = {}
    user: dict[str, Any] = {}
    temp: dict[str, Any] = {}
    for key, value in delta.items():
        if key.startswith(State.APP_PREFIX):
            app[key[len(State.APP_PREFIX) :]] = value
        elif key.startswith(State.USER_PREFIX):
            user[key[len(State.USER_PREFIX) :]] = value
        elif key.startswith(State.TEMP_PREFIX):
            temp[key] = value
        else:
            session[key] = value
    return session, app, user, temp


def merge_state(
    session_state: Mapping[str, Any],
    app_state: Mapping[str, Any],
    user_state: Mapping[str, Any],
) -> dict[str, Any]:
    """Return the merged view: session keys, then ``app:`` and ``user:`` keys with prefixes."""
    merged = dict(session_state)
    for key, value in app_state.items():
        merged[State.APP_PREFIX + key] = value
    for key, value in user_state.items():
        merged[State.USER_PREFIX + key] = value
    return merged
