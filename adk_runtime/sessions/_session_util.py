"""``google.adk.sessions._session_util`` → here: two helpers custom session services use.

google-adk's own stores call them; here the stores go through
:class:`~adk_runtime.sessions.base.BaseSessionService`, which splits and checks every delta
itself. They stay for code written against google-adk's module. Its lossy helpers (state
values that are not JSON replaced by their ``repr``) are left out on purpose: here such a
value is refused with a ``SerializationError`` before anything is written.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from adk_runtime.sessions.state import split_state_delta

__all__ = ["decode_model", "extract_state_delta"]

M = TypeVar("M", bound=BaseModel)

# Values that cannot hold a model's fields: a stored "null" string or a bare number reads
# as "no value" instead of failing the whole read.
_NOT_A_MODEL = (str, bytes, int, float, bool, list, tuple, set)


def decode_model(data: object | None, model_cls: type[M]) -> M | None:
    """``model_cls`` validated from ``data`` (a mapping); None for None or a scalar/list.

    Raises:
        pydantic.ValidationError: ``data`` is a mapping that does not fit ``model_cls``.
    """
    if data is None or isinstance(data, _NOT_A_MODEL):
        return None
    return model_cls.model_validate(data)


def extract_state_delta(state: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Split ``state`` by scope: ``{"app": ..., "user": ..., "session": ...}``.

    ``app:`` and ``user:`` keys lose their prefix; ``temp:`` keys are dropped (never stored).
    """
    session, app, user, _temp = split_state_delta(state or {})
    return {"app": app, "user": user, "session": session}
