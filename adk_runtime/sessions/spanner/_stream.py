"""A query's rows from ``ExecuteStreamingSql``: partial result sets put back together.

Every query of the service is streamed, not sent with the unary ``ExecuteSql``: Spanner
refuses a unary result over 10 MiB (``FAILED_PRECONDITION``), and one session's events easily
exceed that (an event may be up to 10 MiB itself). A stream has no size limit (only a row's,
100 MiB, and a value's, 10 MiB), and is still one RPC: one round trip.

Spanner cuts the stream into :class:`PartialResultSet` messages of about 1 MiB, and may cut a
value in two (``chunked_value``: the last value of one message continues in the first value of
the next). :class:`Rows` joins the pieces as Spanner's API reference says: strings are
concatenated; lists are concatenated, their boundary elements joined again when both are
strings or lists; no other value is ever cut.
"""

from __future__ import annotations

from collections.abc import AsyncIterable
from typing import Any

from google.cloud.spanner_v1 import PartialResultSet
from google.protobuf import struct_pb2

from adk_runtime.sessions.spanner._values import decode_row

__all__ = ["Rows", "merge"]

_CHUNKABLE = ("string_value", "list_value")


def merge(left: struct_pb2.Value, right: struct_pb2.Value) -> struct_pb2.Value:
    """The value of which ``left`` and ``right`` are consecutive chunks."""
    kind = left.WhichOneof("kind")
    if kind != right.WhichOneof("kind") or kind not in _CHUNKABLE:
        raise ValueError(f"Spanner sent a chunk of {kind} followed by a chunk of another kind.")
    if kind == "string_value":
        return struct_pb2.Value(string_value=left.string_value + right.string_value)
    head = list(left.list_value.values)
    tail = list(right.list_value.values)
    last = head[-1].WhichOneof("kind") if head else None
    if tail and last in _CHUNKABLE and last == tail[0].WhichOneof("kind"):
        head[-1] = merge(head[-1], tail.pop(0))
    return struct_pb2.Value(list_value=struct_pb2.ListValue(values=head + tail))


class Rows:
    """The rows of one streamed query, built from its partial result sets in order."""

    def __init__(self, *, binary: bool = False) -> None:
        """``binary``: BYTES columns are read as ``bytes`` (else as UTF-8 text)."""
        self._binary = binary
        self.transaction_id: bytes | None = None
        """The id of the transaction the query began (inline ``begin``), if any."""
        self._types: list[Any] | None = None
        self._values: list[struct_pb2.Value] = []
        self._pending: struct_pb2.Value | None = None

    def add(self, partial: PartialResultSet) -> None:
        """Take the next message of the stream."""
        raw = PartialResultSet.pb(partial)
        if self._types is None and raw.HasField("metadata"):
            self._types = [field.type_ for field in raw.metadata.row_type.fields]
            if raw.metadata.HasField("transaction"):
                self.transaction_id = raw.metadata.transaction.id
        values = list(raw.values)
        if self._pending is not None and values:
            values[0] = merge(self._pending, values[0])
            self._pending = None
        if raw.chunked_value and values:
            self._pending = values.pop()
        self._values.extend(values)

    async def read(self, stream: AsyncIterable[PartialResultSet]) -> list[list[Any]]:
        """Consume ``stream`` and return its rows decoded."""
        async for partial in stream:
            self.add(partial)
        return self.decoded()

    def decoded(self) -> list[list[Any]]:
        """The rows taken so far, decoded (every message of the stream taken)."""
        if self._pending is not None:
            raise ValueError("Spanner's stream ended inside a chunked value.")
        types = self._types or []
        width = len(types)
        if not width:
            return []
        rows = []
        for start in range(0, len(self._values), width):
            rows.append(decode_row(self._values[start : start + width], types, binary=self._binary))
        return rows
