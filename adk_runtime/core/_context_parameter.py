"""Which parameter of a user function takes the context (google-adk's ``find_context_parameter``).

A tool or callback may ask for the context under any name, by annotating that parameter
with ``Context``, ``ToolContext`` or ``CallbackContext``.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from types import UnionType
from typing import Any, Union, get_args, get_origin

from adk_runtime.core.callback_context import CallbackContext

__all__ = ["find_context_parameter"]


def _is_context_type(annotation: Any) -> bool:
    """Whether ``annotation`` is a context class, or an Optional / union holding one.

    The context classes are ``Context``, ``ToolContext``, ``CallbackContext`` and their
    subclasses.
    """
    if get_origin(annotation) in (Union, UnionType):
        return any(_is_context_type(arg) for arg in get_args(annotation))
    return inspect.isclass(annotation) and issubclass(annotation, CallbackContext)


def _find(func: Callable[..., Any] | None) -> str | None:
    if func is None:
        return None
    try:
        parameters = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return None
    try:
        hints = typing.get_type_hints(func)
    except Exception:  # an unresolvable annotation: read them unresolved
        hints = {}
    for name, parameter in parameters.items():
        if _is_context_type(hints.get(name, parameter.annotation)):
            return name
    return None


_cached = functools.lru_cache(maxsize=1024)(_find)


class _FindContextParameter:
    """``find_context_parameter``: the lookup, cached per callable (``cache_clear()``)."""

    def __call__(self, func: Callable[..., Any] | None) -> str | None:
        """The name of ``func``'s first parameter annotated with a context type, or None.

        The annotation may be ``Context`` / ``ToolContext`` / ``CallbackContext`` (also as
        a string, or inside ``Optional``). The answer is cached per callable; a callable
        that cannot be hashed is inspected every time.
        """
        try:
            return _cached(func)
        except TypeError:  # unhashable callable
            return _find(func)

    def cache_clear(self) -> None:
        """Forget the cached answers."""
        _cached.cache_clear()


find_context_parameter = _FindContextParameter()
