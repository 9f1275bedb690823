"""Pydantic field types for free-form (``Any``-valued) event fields.

In JSON mode they go through :mod:`adk_runtime.codec`, so bytes, datetimes and awkward floats
round-trip exactly. Validation decodes only input that came from storage (JSON text, or a
dict parsed from it and validated with :data:`STORED`), never a value a user built in Python.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, ConfigDict, PlainSerializer, ValidationInfo, alias_generators

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


def _serialize(value: Any) -> Any:
    return codec.encode_value(value)


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
