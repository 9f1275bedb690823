"""Hypothesis strategies for stored values and ids, and an exact comparison of values.

``storable`` values must read back exactly (after the documented normalization: tuples are
lists, datetimes are aware and in UTC); ``unstorable`` values must be refused with a typed
error before anything is written.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from adk_runtime.sessions._validation import MAX_ID_LENGTH

_TEXT_CHARS = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")
_ASTRAL = st.characters(min_codepoint=0x10000, max_codepoint=0x10FFFF, blacklist_categories=("Cs",))
text = st.text(_TEXT_CHARS | _ASTRAL, max_size=40)

_AWKWARD_FLOATS = st.sampled_from(
    [-0.0, 0.0, 1e308, -1e308, 5e-324, 1e16, 1e22, 1.2345678901234568e17, 2.0**53 + 2, 0.1]
)
_OFFSETS = st.builds(
    timezone, st.timedeltas(min_value=timedelta(hours=-23), max_value=timedelta(hours=23))
)
# Year 2..9998 keeps every offset inside datetime's range once converted to UTC.
_DATETIMES = st.datetimes(
    min_value=datetime(2, 1, 1), max_value=datetime(9998, 12, 31), timezones=st.none() | _OFFSETS
)

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(2**256), max_value=2**256)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _AWKWARD_FLOATS
    | text
    | st.binary(max_size=48)
    | _DATETIMES
)

storable = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(text, inner, max_size=4)
        # Dicts that look like the codec's own tags must still read back as dicts.
        | st.dictionaries(st.sampled_from(["$bytes", "$datetime", "$float", "$dict"]), inner)
    ),
    max_leaves=12,
)


def deep(depth: int, leaf: Any) -> Any:
    """A value nested ``depth`` levels deep (alternating dict and list)."""
    value = leaf
    for level in range(depth):
        value = {"d": value} if level % 2 else [value]
    return value


_BAD_LEAVES = st.one_of(
    st.just(float("nan")),
    st.just(float("inf")),
    st.just(-math.inf),
    st.builds(lambda s: s[:3] + "\x00" + s[3:], text),
    st.just("lone \ud800 surrogate"),
    st.just({1, 2}),
    st.just(object()),
    st.builds(pow, st.just(2), st.just(14_000)),
    st.just({1: "non-string key"}),
)
unstorable = st.recursive(
    _BAD_LEAVES,
    lambda inner: (
        st.lists(inner, min_size=1, max_size=2)
        | st.dictionaries(text, inner, min_size=1, max_size=2)
    ),
    max_leaves=3,
)

state_keys = st.builds(
    lambda prefix, key: prefix + key, st.sampled_from(["", "app:", "user:"]), text
)
states = st.dictionaries(state_keys, storable, max_size=5)

_ID_CHARS = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\x7f")
ids = st.text(_ID_CHARS | _ASTRAL, min_size=1, max_size=MAX_ID_LENGTH).filter(
    lambda s: not any(0x80 <= ord(c) <= 0x9F for c in s)
)
bad_ids = st.one_of(
    st.just(""),
    st.text(_ID_CHARS, min_size=MAX_ID_LENGTH + 1, max_size=MAX_ID_LENGTH + 20),
    st.builds(
        lambda a, c, b: a + c + b,
        text,
        st.sampled_from(["\x00", "\n", "\x1b", "\x7f", "\x85"]),
        text,
    ),
    st.just("lone \udfff"),
)


def normalize(value: Any) -> Any:
    """What a storable value must read back as."""
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)
        return aware.astimezone(timezone.utc)
    if isinstance(value, (list, tuple)):
        return [normalize(item) for item in value]
    if isinstance(value, dict):
        return {key: normalize(item) for key, item in value.items()}
    return value


def same(a: Any, b: Any) -> bool:
    """Exact equality: types match (bool is not int), floats compare by repr (-0.0 != 0.0)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)
    if isinstance(a, datetime):
        return a == b and a.utcoffset() == b.utcoffset()
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def expected_state(state: dict[str, Any]) -> dict[str, Any]:
    """The merged state a session created with ``state`` reads back as."""
    return {key: normalize(value) for key, value in state.items() if not key.startswith("temp:")}
