"""Python values to Spanner's wire values and back (query parameters, mutations, rows).

Spanner sends every value as a ``google.protobuf.Value``: INT64 and TIMESTAMP as text, FLOAT64
as a number (or the text ``NaN``/``Infinity``), ARRAY and STRUCT as lists. Parameters are typed
by their Python type here (``str`` → STRING, ``int`` → INT64, ``float`` → FLOAT64, ``bool``
→ BOOL, ``bytes`` → BYTES, a list of ``str`` → ARRAY<STRING>); times are passed and read as
INT64 microseconds since the epoch (``UNIX_MICROS``, ``TIMESTAMP_MICROS``), so no value is
ever parsed from text but integers.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any, Final

from google.cloud.spanner_v1 import Type, TypeCode
from google.protobuf import struct_pb2

__all__ = [
    "COMMIT_TIMESTAMP",
    "Blob",
    "Param",
    "Timestamp",
    "Value",
    "decode_row",
    "encode_params",
    "encode_values",
    "micros",
    "seconds",
]

Param = str | int | float | bool | bytes | list[str] | None
"""A query parameter's or a mutation's value."""


class _CommitTimestamp:
    """The commit timestamp placeholder of a mutation (Spanner fills it in at commit)."""

    def __repr__(self) -> str:
        return "COMMIT_TIMESTAMP"


COMMIT_TIMESTAMP: Final = _CommitTimestamp()
"""A mutation value Spanner replaces by the transaction's commit timestamp."""


class Timestamp(int):
    """A TIMESTAMP mutation value, in microseconds since the epoch."""


class Blob(str):
    """A BYTES mutation value: text stored as UTF-8 (read back as ``str``).

    The service's JSON columns are BYTES, not STRING: a Spanner cell holds up to 10 MiB of
    BYTES but only 2.5 Mi characters of STRING.
    """


Value = Param | _CommitTimestamp | Timestamp | Blob
"""A mutation's value."""

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_COMMIT_TIMESTAMP_TEXT = "spanner.commit_timestamp()"

_TYPES: dict[type, Type] = {
    str: Type(code=TypeCode.STRING),
    bool: Type(code=TypeCode.BOOL),
    int: Type(code=TypeCode.INT64),
    float: Type(code=TypeCode.FLOAT64),
    bytes: Type(code=TypeCode.BYTES),
}
_STRING_ARRAY = Type(code=TypeCode.ARRAY, array_element_type=Type(code=TypeCode.STRING))


def micros(seconds_value: float) -> int:
    """Seconds since the epoch as whole microseconds (exact for a time read as :func:`seconds`)."""
    return round(seconds_value * 1_000_000)


def seconds(micros_value: int) -> float:
    """Microseconds since the epoch as float seconds."""
    return micros_value / 1_000_000


def _value(value: Value) -> struct_pb2.Value:
    if value is None:
        return struct_pb2.Value(null_value=struct_pb2.NULL_VALUE)
    if isinstance(value, bool):
        return struct_pb2.Value(bool_value=value)
    if isinstance(value, Timestamp):
        return struct_pb2.Value(string_value=_rfc3339(value))
    if isinstance(value, int):
        return struct_pb2.Value(string_value=str(value))
    if isinstance(value, float):
        return struct_pb2.Value(number_value=value)
    if isinstance(value, Blob):
        return struct_pb2.Value(string_value=base64.b64encode(value.encode()).decode("ascii"))
    if isinstance(value, bytes):
        return struct_pb2.Value(string_value=base64.b64encode(value).decode("ascii"))
    if isinstance(value, str):
        return struct_pb2.Value(string_value=value)
    if isinstance(value, _CommitTimestamp):
        return struct_pb2.Value(string_value=_COMMIT_TIMESTAMP_TEXT)
    items = [struct_pb2.Value(string_value=item) for item in value]
    return struct_pb2.Value(list_value=struct_pb2.ListValue(values=items))


def _rfc3339(value: int) -> str:
    moment = _EPOCH + timedelta(microseconds=value)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def encode_params(params: Mapping[str, Param]) -> tuple[struct_pb2.Struct, dict[str, Type]]:
    """A query's parameters and their types (a None parameter is an untyped NULL)."""
    fields = {name: _value(value) for name, value in params.items()}
    types: dict[str, Type] = {}
    for name, value in params.items():
        if isinstance(value, list):
            types[name] = _STRING_ARRAY
        elif value is not None:
            types[name] = _TYPES[type(value)]
    return struct_pb2.Struct(fields=fields), types


def encode_values(values: Sequence[Value]) -> struct_pb2.ListValue:
    """One mutation row."""
    return struct_pb2.ListValue(values=[_value(value) for value in values])


def _decode(value: struct_pb2.Value, kind: Any, binary: bool) -> Any:
    if value.WhichOneof("kind") == "null_value":
        return None
    code = kind.code
    if code == TypeCode.INT64:
        return int(value.string_value)
    if code == TypeCode.FLOAT64:
        if value.WhichOneof("kind") == "string_value":
            return float(value.string_value)  # NaN, Infinity, -Infinity
        return value.number_value
    if code == TypeCode.BOOL:
        return value.bool_value
    if code == TypeCode.BYTES:  # text stored as BYTES (see Blob), unless binary is asked for
        raw = base64.b64decode(value.string_value)
        return raw if binary else raw.decode()
    if code == TypeCode.ARRAY:
        element = kind.array_element_type
        return [_decode(item, element, binary) for item in value.list_value.values]
    if code == TypeCode.STRUCT:
        fields = kind.struct_type.fields
        return [
            _decode(item, field.type_, binary)
            for item, field in zip(value.list_value.values, fields, strict=True)
        ]
    return value.string_value  # STRING, JSON, TIMESTAMP (text), ...


def decode_row(
    values: Sequence[struct_pb2.Value], types: Sequence[Any], *, binary: bool = False
) -> list[Any]:
    """One result row as Python values (``types``: the raw ``StructType.Field.type`` list).

    BYTES values are read as UTF-8 text (:class:`Blob`), or as ``bytes`` when ``binary``.
    """
    return [_decode(value, kind, binary) for value, kind in zip(values, types, strict=True)]
