from __future__ import annotations

import datetime
import enum
import json
from collections import OrderedDict
from typing import Any

import pytest
from google.genai import types

from adk_runtime import codec
from adk_runtime.errors import SerializationError


def _round_trip(value: Any) -> Any:
    return codec.decode_value(json.loads(codec.dumps(codec.encode_value(value))))


@pytest.mark.parametrize(
    "value",
    [
        None,
        True,
        0,
        -(2**100),
        1.5,
        0.1,
        1e16,
        -0.0,
        1e-300,
        "ünïcödé 𝄞",
        b"",
        b"\x00\x01\xff",
        [1, [2, [3]]],
        {"a": {"b": {"c": None}}},
        {"$bytes": "looks like a tag"},
        {"$dict": {"$float": "x"}},
        datetime.datetime(2020, 2, 29, 23, 59, 59, 123456, tzinfo=datetime.timezone.utc),
    ],
    ids=repr,
)
def test_exact_round_trip(value: Any) -> None:
    result = _round_trip(value)
    assert result == value
    assert type(result) is type(value)
    if isinstance(value, float):
        assert repr(result) == repr(value)


def test_awkward_floats_are_tagged() -> None:
    assert codec.encode_value(1e16) == {"$float": "1e+16"}
    assert codec.encode_value(-0.0) == {"$float": "-0.0"}
    assert codec.encode_value(2.5) == 2.5
    # Integral in exponent form with a fraction part: JSONB would print it as an integer.
    assert codec.encode_value(1.0000000000000002e16) == {"$float": "1.0000000000000002e+16"}
    assert codec.encode_value(1.5e-7) == 1.5e-7


def test_naive_datetime_is_read_back_as_utc() -> None:
    naive = datetime.datetime(2021, 1, 1, 12, 0)
    assert _round_trip(naive) == naive.replace(tzinfo=datetime.timezone.utc)


def test_tuples_become_lists_and_subclasses_their_base() -> None:
    class Color(enum.IntEnum):
        RED = 1

    class Shade(str, enum.Enum):  # str() of a member is "Shade.DARK"; its value is stored
        DARK = "dark"

    assert _round_trip((1, 2)) == [1, 2]
    assert _round_trip(Shade.DARK) == "dark"
    assert _round_trip({"finish": types.FinishReason.STOP}) == {"finish": "STOP"}
    assert _round_trip(OrderedDict(a=1)) == {"a": 1}
    assert _round_trip(Color.RED) == 1
    assert _round_trip(bytearray(b"x")) == b"x"


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({"a": {"b": {1, 2}}}, "state['a']['b']"),
        ({"a": [0, 1, float("inf")]}, "state['a'][2]"),
        ({"a": "x\x00y"}, "state['a']"),
        ({"a": "\ud800"}, "state['a']"),
        ({"a": {3: "non-string key"}}, "state['a']"),
        ({"a": 10**5000}, "state['a']"),
        ({"a\x00": 1}, "state['a\\x00']"),
    ],
)
def test_unstorable_values_name_their_path(value: Any, path: str) -> None:
    with pytest.raises(SerializationError) as info:
        codec.encode_state(value, "state")
    assert info.value.path == path
    assert path in str(info.value)


def test_error_message_does_not_echo_the_value() -> None:
    secret = "s3cr3t-payload"
    with pytest.raises(SerializationError) as info:
        codec.encode_value({"k": [secret, object()]}, "state")
    assert secret not in str(info.value)


def test_encoding_copies_and_does_not_alias() -> None:
    original = {"list": [1, 2], "dict": {"x": 1}}
    encoded = codec.encode_value(original)
    encoded["list"].append(3)
    encoded["dict"]["y"] = 2
    assert original == {"list": [1, 2], "dict": {"x": 1}}


def test_deep_nesting_is_rejected_cleanly() -> None:
    deep: Any = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(SerializationError):
        codec.encode_value(deep, "state")


def test_state_with_a_tag_like_key_stays_a_plain_mapping() -> None:
    assert codec.encode_state({"$bytes": 1}) == {"$bytes": 1}
    assert codec.decode_state(codec.encode_state({"$bytes": b"x"})) == {"$bytes": b"x"}
