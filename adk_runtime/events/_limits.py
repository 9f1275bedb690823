"""What an event must satisfy to be stored: nothing is committed that cannot be read back.

:func:`check_storable` runs on the encoded event (its stored JSON text) before any backend
write, with the limits the decoder has:

- **Finite numbers.** JSON has no NaN or infinity; pydantic would write them as ``null``, and
  a ``timestamp`` or an ``avg_logprobs`` of ``null`` no longer reads back, while a NaN in
  function-call arguments silently becomes ``None``. Refused, never altered.
- **Nesting depth** of the whole encoded event: at most :data:`MAX_EVENT_DEPTH` levels (the
  JSON decoder gives up near 200).
- **Size**: at most :data:`MAX_EVENT_BYTES` of JSON.

Each check costs next to nothing when it passes (a substring search, two counts); only a
suspicious event is walked to name the offending path in the
:class:`~adk_runtime.errors.SerializationError`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from adk_runtime.errors import SerializationError

__all__ = ["MAX_EVENT_BYTES", "MAX_EVENT_DEPTH", "check_storable"]

MAX_EVENT_DEPTH = 128
"""Deepest nesting of objects and arrays in a stored event's JSON."""

MAX_EVENT_BYTES = 16 * 1024 * 1024
"""Largest stored event, in characters of JSON."""


def check_storable(event: Any, text: str) -> None:
    """Raise :class:`SerializationError` unless ``text`` (``event`` encoded) reads back as is.

    Raises:
        SerializationError: A number is NaN or infinite, the event nests too deeply, or it is
            too large; the error names the path (e.g. ``event.content.parts[0].function_call
            .args['x']``). Nothing is written.
    """
    if len(text) > MAX_EVENT_BYTES:
        raise SerializationError(
            "event", f"it is {len(text):,} characters of JSON; the limit is {MAX_EVENT_BYTES:,}"
        )
    if "null" in text:  # a non-finite float is written as null: look closer
        for path, value in _walk(event, "event", 0):
            if isinstance(value, float) and not math.isfinite(value):
                raise SerializationError(path, f"{value!r} is not a finite number")
    if text.count("{") + text.count("[") > MAX_EVENT_DEPTH:
        depth, path = _deepest(event)
        if depth > MAX_EVENT_DEPTH:
            shown = path if len(path) <= 120 else path[:100] + "…"
            raise SerializationError(
                shown, f"the event nests more than {MAX_EVENT_DEPTH} levels deep"
            )


def _children(value: Any, path: str) -> Iterator[tuple[str, Any]]:
    if isinstance(value, BaseModel):
        fields = {**value.__dict__, **(value.__pydantic_extra__ or {})}
        for name, item in fields.items():
            if item is not None:
                yield f"{path}.{name}", item
    elif isinstance(value, dict):
        for key, item in value.items():
            yield f"{path}[{key!r}]", item
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield f"{path}[{index}]", item


def _walk(value: Any, path: str, depth: int) -> Iterator[tuple[str, Any]]:
    yield path, value
    if depth > MAX_EVENT_DEPTH * 2:
        return  # deeper than any storable event: the depth check reports it
    for child_path, child in _children(value, path):
        yield from _walk(child, child_path, depth + 1)


def _deepest(value: Any) -> tuple[int, str]:
    """The deepest container nesting under ``value`` and the path where it is reached."""
    best = (0, "event")
    stack: list[tuple[Any, str, int]] = [(value, "event", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, (BaseModel, dict, list, tuple)):
            depth += 1
            if depth > best[0]:
                best = (depth, path)
            if depth > MAX_EVENT_DEPTH + 1:
                continue
            stack.extend((child, child_path, depth) for child_path, child in _children(item, path))
    return best
