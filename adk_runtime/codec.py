"""The one JSON codec every backend stores values with.

State values and free-form event fields are arbitrary Python values; storage is JSON. This
module maps one to the other *exactly* and the same way on every backend, so a value reads
back identical from memory, SQLite, PostgreSQL or Redis:

- ``None``, ``bool``, ``int``, ``str``, ``list`` and ``dict`` with ``str`` keys map to JSON as is
  (tuples are stored as lists).
- ``bytes`` become ``{"$bytes": "<base64>"}``; ``datetime`` becomes ``{"$datetime": "<ISO-8601>"}``
  (naive datetimes are taken as UTC and read back aware, in UTC).
- Floats are JSON numbers, except the few that a JSON store would read back as integers
  (``-0.0`` and integral floats written in exponent form, e.g. ``1e+16`` or ``1.5e+16``),
  which become ``{"$float": "<repr>"}``. ``nan`` and infinities are not JSON and are rejected.
- A user dict whose only key is one of the tags above is wrapped as ``{"$dict": {...}}``, so
  no user value is ever mistaken for a tag.

Anything else (sets, objects, NUL characters, lone surrogates, non-string keys, integers too
long to print, values nested more than :data:`MAX_DEPTH` levels deep) raises
:class:`~adk_runtime.errors.SerializationError` naming the key path of the offending value,
before anything is written. There is no pickle anywhere.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from adk_runtime.errors import SerializationError

__all__ = ["decode_state", "decode_value", "dumps", "encode_state", "encode_value", "loads"]

_BYTES = "$bytes"
_DATETIME = "$datetime"
_FLOAT = "$float"
_DICT = "$dict"
_TAGS = frozenset({_BYTES, _DATETIME, _FLOAT, _DICT})
_MAX_INT_BITS = 13_000  # about 3,900 decimal digits: below Python's 4,300-digit print limit
MAX_DEPTH = 100
"""Deepest nesting of lists and dicts a value may have (stored events must parse back)."""


class _PathError(Exception):
    """Internal: a value failed to encode; ``parts`` grows as the recursion unwinds."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.parts: list[str] = []


def _check_str(value: str) -> str:
    if "\x00" in value:
        raise _PathError("strings must not contain NUL characters (PostgreSQL cannot store them)")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _PathError("strings must be valid Unicode (found a lone surrogate)") from None
    return value


def _encode_float(value: float) -> Any:
    if math.isnan(value) or math.isinf(value):
        raise _PathError(f"{value!r} is not a JSON number")
    text = repr(value)
    if value == 0.0 and math.copysign(1.0, value) < 0:
        return {_FLOAT: text}
    if "e" in text and value.is_integer():
        # PostgreSQL's JSONB prints 1e+16 and 1.5e+16 alike as integers (no fraction).
        return {_FLOAT: text}
    return value


def _encode_dict(value: Mapping[Any, Any], depth: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, item in value.items():
        if type(key) is not str:
            raise _PathError(f"dict keys must be strings, not {type(key).__name__}")
        try:
            _check_str(key)
            out[key] = _encode(item, depth + 1)
        except _PathError as exc:
            exc.parts.append(f"[{key!r}]")
            raise
    if len(out) == 1 and next(iter(out)) in _TAGS:
        return {_DICT: out}
    return out


def _encode_list(value: list[Any] | tuple[Any, ...], depth: int) -> list[Any]:
    out: list[Any] = []
    for index, item in enumerate(value):
        try:
            out.append(_encode(item, depth + 1))
        except _PathError as exc:
            exc.parts.append(f"[{index}]")
            raise
    return out


def _encode_bytes(value: bytes | bytearray | memoryview) -> dict[str, str]:
    return {_BYTES: base64.b64encode(bytes(value)).decode("ascii")}


def _encode_datetime(value: datetime) -> dict[str, str]:
    aware = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
    return {_DATETIME: aware.astimezone(timezone.utc).isoformat()}


def _encode_int(value: int) -> int:
    if value.bit_length() > _MAX_INT_BITS:
        raise _PathError("integers longer than 4,000 digits cannot be stored")
    return int(value)


_EXACT: dict[type, Callable[[Any], Any]] = {
    str: _check_str,
    int: _encode_int,
    bool: lambda value: value,
    type(None): lambda value: value,
    float: _encode_float,
    bytes: _encode_bytes,
    datetime: _encode_datetime,
}
# Subclasses (IntEnum, OrderedDict, bytearray...) are encoded as their base type.
_BASES: tuple[tuple[type | tuple[type, ...], Callable[[Any], Any]], ...] = (
    (bool, lambda value: bool(value)),
    # str.__str__, not str(): a (str, Enum) member's str() is "Cls.NAME", not its value.
    (str, lambda value: _check_str(str.__str__(value))),
    (int, _encode_int),
    (float, lambda value: _encode_float(float(value))),
    ((bytes, bytearray, memoryview), _encode_bytes),
    (datetime, _encode_datetime),
)


def _encode_container(value: Any, depth: int) -> Any:
    if depth >= MAX_DEPTH:
        raise _PathError(f"values nested more than {MAX_DEPTH} levels deep cannot be stored")
    if isinstance(value, Mapping):
        return _encode_dict(value, depth)
    return _encode_list(value, depth)


def _encode(value: Any, depth: int = 0) -> Any:
    kind = type(value)
    if kind is dict or kind is list or kind is tuple:
        return _encode_container(value, depth)
    encoder = _EXACT.get(kind)
    if encoder is not None:
        return encoder(value)
    if isinstance(value, (Mapping, list, tuple)):
        return _encode_container(value, depth)
    for base, fallback in _BASES:
        if isinstance(value, base):
            return fallback(value)
    raise _PathError(f"values of type {type(value).__name__} are not JSON-serializable")


def encode_value(value: Any, path: str = "value") -> Any:
    """Encode one value into its JSON-ready form.

    Args:
        value: Any value a user may put into state or an event's free-form fields.
        path: How to name the value in an error, e.g. ``"state_delta"``.

    Returns:
        A new structure of JSON types only (the input is never modified or aliased).

    Raises:
        SerializationError: The value (or one nested in it) cannot be stored; the error's
            ``path`` names it, e.g. ``state_delta['bad']['inner']``.
    """
    try:
        return _encode(value)
    except _PathError as exc:
        raise SerializationError(path + "".join(reversed(exc.parts)), exc.reason) from None
    except RecursionError:
        raise SerializationError(path, "the value is nested too deeply") from None


def encode_state(state: Mapping[str, Any], path: str = "state") -> dict[str, Any]:
    """Encode a state mapping (string keys) into its JSON-ready form; see :func:`encode_value`."""
    encoded = encode_value(state, path)
    if _DICT in encoded and len(encoded) == 1 and len(state) == 1:
        return dict(encoded[_DICT])
    return dict(encoded)


def decode_value(value: Any) -> Any:
    """Decode a value produced by :func:`encode_value` (returns new containers)."""
    kind = type(value)
    if kind is dict:
        if len(value) == 1:
            ((tag, inner),) = value.items()
            if tag in _TAGS:
                return _decode_tag(tag, inner)
        return {key: decode_value(item) for key, item in value.items()}
    if kind is list:
        return [decode_value(item) for item in value]
    return value


def _decode_tag(tag: str, inner: Any) -> Any:
    if tag == _BYTES:
        return base64.b64decode(inner)
    if tag == _DATETIME:
        return datetime.fromisoformat(inner)
    if tag == _FLOAT:
        return float(inner)
    return {key: decode_value(item) for key, item in inner.items()}


def decode_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """Decode a stored state mapping; keys are taken as they are."""
    return {key: decode_value(item) for key, item in state.items()}


def dumps(value: Any) -> str:
    """Serialize an already-encoded value to compact JSON text.

    Raises:
        SerializationError: The value cannot be printed as JSON (e.g. an integer too long).
    """
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    except (ValueError, TypeError) as exc:
        raise SerializationError("value", str(exc)) from None


def loads(text: str | bytes) -> Any:
    """Parse JSON text written by :func:`dumps` (no decoding of tags)."""
    return json.loads(text)
