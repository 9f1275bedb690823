"""Pydantic field types for free-form (``Any``-valued) event fields.

In JSON mode they go through :mod:`adk_runtime.codec`, so bytes, datetimes and awkward floats
round-trip exactly. Validation decodes only input that came from storage (JSON text, or a
dict parsed from it and validated with :data:`STORED`), never a value a user built in Python.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BeforeValidator,
    ConfigDict,
    PlainSerializer,
    SerializationInfo,
    ValidationInfo,
    alias_generators,
)

from adk_runtime import codec

STORED_FORM = ConfigDict(
    extra="forbid",
    alias_generator=alias_generators.to_camel,
    populate_by_name=True,
    ser_json_bytes="base64",
    val_json_bytes="base64",
)
"""The model config of every stored model (events and what they hold): google-adk's camelCase
JSON, bytes as base64, unknown fields refused (when read back from storage they are left out,
see ``_stored_decoder``)."""

STORED: dict[str, bool] = {"adk_runtime_stored": True}
"""Validation context for a dict that was parsed from stored JSON."""


def _serialize(value: Any, info: SerializationInfo) -> Any:
    # A plain serializer replaces pydantic's own, include= and exclude= with it: apply them.
    return codec.encode_value(_filtered(value, info.include, info.exclude))


def _filtered(value: Any, include: Any, exclude: Any) -> Any:
    """``value`` with pydantic's ``include`` / ``exclude`` for it applied.

    They name a dict's keys, at any depth: ``{key: True}``, ``{key: {...nested}}``, a set of
    keys, ``"__all__"``.
    """
    if not isinstance(value, dict) or (include is None and exclude is None):
        return value
    kept: dict[Any, Any] = {}
    for key, item in value.items():
        dropped = _part(exclude, key)
        taken = True if include is None else _part(include, key)
        if dropped is True or taken is None:
            continue
        kept[key] = _filtered(
            item,
            None if taken is True else taken,
            None if dropped is None else dropped,
        )
    return kept


def _part(spec: Any, key: Any) -> Any:
    """What ``spec`` says of ``key``: True (all of it), a nested spec, or None (nothing)."""
    if isinstance(spec, (set, frozenset)):
        return True if key in spec or "__all__" in spec else None
    if isinstance(spec, dict):
        part = spec.get(key, spec.get("__all__"))
        return None if part is False else part
    return None


def _validate(value: Any, info: ValidationInfo) -> Any:
    if value is None:
        return None
    if info.mode == "json" or (info.context is not None and info.context.get("adk_runtime_stored")):
        return codec.decode_value(value)
    return value


JsonDict = Annotated[
    dict[str, Any],
    PlainSerializer(_serialize, when_used="json"),
    BeforeValidator(_validate),
]
"""A ``dict[str, Any]`` whose values are stored through the shared codec."""

JsonValue = Annotated[
    Any,
    PlainSerializer(_serialize, when_used="json"),
    BeforeValidator(_validate),
]
"""Any JSON-like value, stored through the shared codec."""
