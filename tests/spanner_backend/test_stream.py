"""Partial result sets put back together (:mod:`adk_runtime.sessions.spanner._stream`)."""

from __future__ import annotations

import base64

from google.cloud.spanner_v1 import PartialResultSet, ResultSetMetadata, StructType, Type
from google.cloud.spanner_v1 import TypeCode as Code
from google.protobuf import struct_pb2

from adk_runtime.sessions.spanner._stream import Rows, merge


def _string(text: str) -> struct_pb2.Value:
    return struct_pb2.Value(string_value=text)


def _list(*items: struct_pb2.Value) -> struct_pb2.Value:
    return struct_pb2.Value(list_value=struct_pb2.ListValue(values=list(items)))


def _partial(values: list[struct_pb2.Value], chunked: bool) -> PartialResultSet:
    raw = PartialResultSet.pb(PartialResultSet())
    raw.values.extend(values)
    raw.chunked_value = chunked
    return PartialResultSet.wrap(raw)


def test_chunks_join_as_spanner_documents() -> None:
    assert merge(_string("ab"), _string("cd")) == _string("abcd")
    number = struct_pb2.Value(number_value=1)
    joined = merge(_list(_string("a"), _string("b")), _list(_string("c"), number))
    assert joined == _list(_string("a"), _string("bc"), number)
    assert merge(_list(number), _list(number)) == _list(number, number)  # numbers: never cut
    nested = merge(_list(_list(_string("x"))), _list(_list(_string("y"), _string("z"))))
    assert nested == _list(_list(_string("xy"), _string("z")))


def test_rows_of_a_stream_whose_values_are_cut() -> None:
    payload = base64.b64encode("é-payload".encode()).decode()
    fields = [
        StructType.Field(name="n", type_=Type(code=Code.INT64)),
        StructType.Field(name="p", type_=Type(code=Code.BYTES)),
    ]
    first = _partial([_string("1"), _string(payload[:3])], chunked=True)
    first.metadata = ResultSetMetadata(row_type=StructType(fields=fields))
    rows = Rows()
    rows.add(first)
    rows.add(_partial([_string(payload[3:7])], chunked=True))
    rows.add(_partial([_string(payload[7:]), _string("2")], chunked=False))
    rows.add(_partial([_string(payload)], chunked=False))
    assert rows.decoded() == [[1, "é-payload"], [2, "é-payload"]]
