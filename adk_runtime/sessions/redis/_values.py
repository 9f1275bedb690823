"""State values as Redis hash fields: codec JSON text in, Python values out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adk_runtime import codec


def json_pairs(encoded: Mapping[str, Any]) -> list[str]:
    """Turn already-encoded values (a :class:`PreparedAppend` delta) into flat pairs."""
    pairs: list[str] = []
    for key, value in encoded.items():
        pairs += [key, codec.dumps(value)]
    return pairs


def decode_pairs(flat: Sequence[Any]) -> dict[str, Any]:
    """Decode a flat ``[field, json, ...]`` reply (what ``HGETALL`` gives inside Lua)."""
    return {
        text(flat[i]): codec.decode_value(codec.loads(flat[i + 1])) for i in range(0, len(flat), 2)
    }


def decode_mapping(mapping: Mapping[Any, Any]) -> dict[str, Any]:
    """Decode a ``{field: json}`` reply (what redis-py makes of ``HGETALL``)."""
    return {text(key): codec.decode_value(codec.loads(value)) for key, value in mapping.items()}


def text(value: Any) -> str:
    """Return a reply item as text, whether the client decodes responses or not."""
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
