"""What a tool or a model hands the flow, made storable before it is committed.

Events are committed as JSON, on every backend alike. A value JSON cannot hold (an object, a
generator, a lone surrogate) or a string with a NUL character (PostgreSQL refuses them) would
make that commit fail and the turn with it:

- a tool's response, or a state write of it, that cannot be stored fails the call instead
  (``unstorable``): the model is told where, and the turn goes on;
- NUL characters and lone surrogates in a model's reply (its text, or a function call's
  arguments) become U+FFFD, the replacement character (``storable_content``), so what
  is stored, yielded and acted on is the same.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping
from typing import Any, TypeVar

import pydantic_core
from google.genai import types
from pydantic import BaseModel

from adk_runtime import codec
from adk_runtime.errors import SerializationError
from adk_runtime.sessions.state import State

__all__ = ["storable_content", "storable_strings", "unstorable", "unstorable_part"]

_T = TypeVar("_T")
_MAX_DEPTH = 64
_SURROGATE = re.compile("[\ud800-\udfff]")


def unstorable(response: Any, state_delta: Mapping[str, Any]) -> str | None:
    """What of a tool call's outcome cannot be stored, as a sentence; None when all can.

    Args:
        response: What the tool returned (a dict, or any value, sent as ``{"result": ...}``).
        state_delta: What it wrote to the state (``temp:`` keys are never stored).
    """
    problem = unstorable_part(response if isinstance(response, dict) else {"result": response})
    if problem is not None:
        return f"The tool's result cannot be stored ({problem})."
    kept = {k: v for k, v in state_delta.items() if not k.startswith(State.TEMP_PREFIX)}
    try:
        codec.encode_value(kept, "state")
    except SerializationError as exc:
        return f"What the tool wrote to the state cannot be stored ({exc.path}: {exc.reason})."
    return None


def unstorable_part(response: dict[str, Any]) -> str | None:
    """Why ``response`` cannot be stored, naming the key path; None when it can."""
    try:
        text = types.FunctionResponse(response=response).model_dump_json(exclude_none=True)
    except pydantic_core.PydanticSerializationError:
        return _find(response, "response", 0) or "response: a value JSON cannot hold"
    if "\\u0000" in text:  # cheap: only a response with the escape is searched
        return _find(response, "response", 0)
    return None


def _find(value: Any, path: str, depth: int) -> str | None:
    """The first value under ``value`` that cannot be stored, as ``path: reason``."""
    if depth > _MAX_DEPTH:
        return f"{path}: nested too deep"
    if isinstance(value, str):
        return f"{path}: a string with a NUL character" if "\x00" in value else _leaf(value, path)
    if isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str) and "\x00" in key:
                return f"{path}: a key with a NUL character"
            found = _find(item, f"{path}[{_shown_key(key)}]", depth + 1)
            if found:
                return found
        return None
    if isinstance(value, (list, tuple, set, frozenset)):
        for index, item in enumerate(value):
            found = _find(item, f"{path}[{index}]", depth + 1)
            if found:
                return found
        return None
    return _leaf(value, path)


def _shown_key(key: Any) -> str:
    shown = repr(key)
    return shown if len(shown) <= 40 else f"{shown[:37]}..."


def _leaf(value: Any, path: str) -> str | None:
    try:
        pydantic_core.to_json(value, bytes_mode="base64")
    except pydantic_core.PydanticSerializationError:
        if inspect.isgenerator(value) or inspect.isasyncgen(value):
            return f"{path}: a generator, which JSON cannot hold"
        return f"{path}: a value of type {type(value).__name__}, which JSON cannot hold"
    return None


def storable_content(content: types.Content) -> types.Content:
    """``content``, or a copy with every NUL character and lone surrogate made U+FFFD."""
    return storable_strings(content)


def storable_strings(value: _T) -> _T:
    """``value``, or a copy whose strings hold no NUL character or lone surrogate.

    Each such character becomes U+FFFD, in strings nested in models, dicts and lists; what
    needs no change is shared, not copied.
    """
    cleaned: _T = _cleaned(value, 0)
    return cleaned


def _storable_str(text: str) -> str:
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (a JSON reply may escape one)
        return _SURROGATE.sub("\ufffd", text)
    return text


def _cleaned(value: Any, depth: int) -> Any:
    """``value`` itself when all its strings are storable; a cleaned copy otherwise."""
    if isinstance(value, str):
        return _storable_str(value)
    if depth > _MAX_DEPTH:
        return value
    if isinstance(value, BaseModel):
        updates: dict[str, Any] = {}
        for name in type(value).model_fields:
            item = getattr(value, name)
            if item is not None and (cleaned := _cleaned(item, depth + 1)) is not item:
                updates[name] = cleaned
        return value.model_copy(update=updates) if updates else value
    if isinstance(value, dict):
        pairs = [(_cleaned(k, depth + 1), _cleaned(v, depth + 1)) for k, v in value.items()]
        changed = any(
            k is not old_k or v is not old_v
            for (k, v), (old_k, old_v) in zip(pairs, value.items(), strict=True)
        )
        return dict(pairs) if changed else value
    if isinstance(value, list):
        items = [_cleaned(item, depth + 1) for item in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value
