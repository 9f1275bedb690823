"""State: a session's key/value state with scope prefixes and delta tracking."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from adk_runtime.errors import AdkRuntimeError

__all__ = ["State", "StateSchemaError", "split_state_delta"]


class StateSchemaError(AdkRuntimeError, TypeError):
    """A state write breaks the agent's ``state_schema``: an undeclared key or a wrong value.

    Nothing of the write is recorded. A ``TypeError``, as in google-adk.
    """


@functools.lru_cache(maxsize=512)
def _field_adapter(schema: type[BaseModel], key: str) -> TypeAdapter[Any]:
    """The adapter of one field: its annotation with its constraints (``Field(ge=0)``...)."""
    return TypeAdapter(schema.model_fields[key].rebuild_annotation())


def check_state_write(schema: type[BaseModel], key: str, value: Any) -> None:
    """Raise :class:`StateSchemaError` unless ``state[key] = value`` fits ``schema``.

    A key with a ``:`` (the ``app:``, ``user:``, ``temp:`` scopes, and the runtime's own
    ``owner:key`` names) is not checked. The message names the key and what is wrong, never
    the value itself.
    """
    if ":" in key:
        return
    fields = schema.model_fields
    if key not in fields:
        raise StateSchemaError(
            f"State key {key!r} is not declared in {schema.__name__} (declared: "
            f"{sorted(fields)}); declare it there, or use a scoped key such as 'temp:{key}'."
        )
    try:
        _field_adapter(schema, key).validate_python(value)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}"
            for e in exc.errors(include_input=False, include_url=False)
        )
        raise StateSchemaError(
            f"State key {key!r} does not fit {schema.__name__}.{key} "
            f"({fields[key].rebuild_annotation()}): {problems}."
        ) from None


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

    def __init__(
        self,
        value: dict[str, Any],
        delta: dict[str, Any],
        schema: type[BaseModel] | None = None,
    ) -> None:
        """Create a view over ``value`` (the session's state) that records writes in ``delta``.

        With ``schema`` (a pydantic model: the agent's ``state_schema``) every assignment is
        checked first (see :func:`check_state_write`); a write into a container read from the
        state is not an assignment and is not checked.
        """
        self._value = value
        self._delta = delta
        self._schema = schema

    def __getitem__(self, key: str) -> Any:
        if key in self._delta:
            return self._delta[key]
        return self._value[key]

    def __setitem__(self, key: str, value: Any) -> None:
        if self._schema is not None:
            check_state_write(self._schema, key, value)
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
        """Write every key of ``delta`` (checked all first: a refused update writes nothing)."""
        if self._schema is not None:
            for key, value in delta.items():
                check_state_write(self._schema, key, value)
        for key, value in delta.items():
            self[key] = value

    @property
    def schema(self) -> type[BaseModel] | None:
        """The pydantic model writes are checked against, or None."""
        return self._schema

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
