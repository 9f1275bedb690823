"""google-adk's label-only feature decorators: ``@experimental`` and ``@working_in_progress``.

They mark a class or a function, with no feature switch behind them (the switchable
features are :mod:`adk_runtime.features`):

- ``@experimental`` / ``@experimental("message")``: each use of the class (building an
  instance) or function warns with a ``UserWarning`` ``[EXPERIMENTAL] <name>: <message>``,
  pointing at the caller's line; Python's warning filters decide how often it shows (by
  default once per calling line; ``-W error`` makes every use raise, ``-W ignore`` hides it).
  ``ADK_SUPPRESS_EXPERIMENTAL_FEATURE_WARNINGS=true`` silences it.
- ``@working_in_progress("message")``: every use raises ``RuntimeError``
  ``[WIP] <name>: <message>`` unless ``ADK_ALLOW_WIP_FEATURES=true``.

The variables are read at each use (``yes``, ``on``, ``1`` and ``true`` are on, in any case).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from enum import Enum
from typing import Any, Protocol, TypeVar, cast, overload

from adk_runtime.utils.env_utils import is_env_enabled

__all__ = ["experimental", "working_in_progress"]

T = TypeVar("T")


class FeatureDecorator(Protocol):
    """A decorator used bare (``@d``), empty (``@d()``) or with a message (``@d("...")``)."""

    @overload
    def __call__(self, message_or_obj: T) -> T: ...

    @overload
    def __call__(self, message_or_obj: str | None = None) -> Callable[[T], T]: ...

    def __call__(self, message_or_obj: Any = None) -> Any:
        """Decorate ``message_or_obj``, or return a decorator using it as the message."""


class _Label:
    """What one decorator does on each use of what it marks."""

    def __init__(self, label: str, blocks: bool, switch: str) -> None:
        self.label = label
        self.blocks = blocks
        self.switch = switch

    def on_use(self, name: str, message: str) -> None:
        """Raise (a blocking label) or warn, unless the switch variable is on."""
        if is_env_enabled(self.switch):
            return
        text = f"[{self.label}] {name}: {message}"
        if self.blocks:
            raise RuntimeError(text)
        warnings.warn(text, UserWarning, stacklevel=3)

    def mark(self, obj: T, message: str) -> T:
        """``obj`` (a class or a callable) checked on each use."""
        name = getattr(obj, "__name__", type(obj).__name__)
        if isinstance(obj, type):
            cls = cast("type[Any]", obj)
            init = cls.__init__

            @functools.wraps(init)
            def checked_init(instance: Any, *args: Any, **kwargs: Any) -> None:
                self.on_use(name, message)
                init(instance, *args, **kwargs)

            cls.__init__ = checked_init
            return obj
        if not callable(obj):
            raise TypeError(f"@{self.label.lower()} marks classes and callables, not {obj!r}.")
        func = cast("Callable[..., Any]", obj)

        @functools.wraps(func)
        def checked(*args: Any, **kwargs: Any) -> Any:
            self.on_use(name, message)
            return func(*args, **kwargs)

        return cast("T", checked)


def _decorator(label: _Label, default_message: str) -> FeatureDecorator:
    def decorate(message_or_obj: Any = None) -> Any:
        if isinstance(message_or_obj, Enum):
            raise TypeError(
                f"@{label.label.lower()} takes a message, not {message_or_obj!r}; to put a unit "
                "behind a feature switch use the decorators of adk_runtime.features."
            )
        if message_or_obj is not None and not isinstance(message_or_obj, str):
            return label.mark(message_or_obj, default_message)
        message = message_or_obj if message_or_obj else default_message

        def apply(obj: Any) -> Any:
            return label.mark(obj, message)

        return apply

    return cast("FeatureDecorator", decorate)


experimental = _decorator(
    _Label("EXPERIMENTAL", blocks=False, switch="ADK_SUPPRESS_EXPERIMENTAL_FEATURE_WARNINGS"),
    "an experimental feature; it may change or go away in any release, without notice.",
)
"""Mark a class or function experimental: using it warns (``UserWarning``)."""

working_in_progress = _decorator(
    _Label("WIP", blocks=True, switch="ADK_ALLOW_WIP_FEATURES"),
    "an unfinished feature, not meant to be used yet.",
)
"""Mark a class or function unfinished: using it raises ``RuntimeError``."""
