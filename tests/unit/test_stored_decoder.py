"""The stored-event validator decodes exactly what the normal one does, only faster.

``event_from_stored`` uses a second compilation of ``Event``'s schema without google-genai's
custom ``Part.__init__`` and its mismatch-logging validator (``events/_stored_decoder.py``).
These tests hold it to the normal ``Event.model_validate_json``: equal events, the same fields
set at every level, the same refusals — over generated events with every kind of part — with
one difference on purpose: a field it does not know (a newer version's) is left out, where
the normal validator refuses it.
"""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from google.genai import types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adk_runtime.errors import UnreadableDataError
from adk_runtime.events import Event, EventActions, event_from_stored, event_to_json
from adk_runtime.events import event as event_module
from adk_runtime.events._stored_decoder import build, sample_payloads
from tests.reliability.values import states, text

_args = st.dictionaries(text, st.one_of(st.integers(-(2**40), 2**40), text, st.booleans()))
_parts = st.one_of(
    st.builds(lambda t, th: types.Part(text=t, thought=th), text, st.none() | st.booleans()),
    st.builds(
        lambda name, args: types.Part(function_call=types.FunctionCall(name=name, args=args)),
        text.filter(bool),
        _args,
    ),
    st.builds(
        lambda name, response: types.Part(
            function_response=types.FunctionResponse(name=name, response=response)
        ),
        text.filter(bool),
        _args,
    ),
    st.builds(
        lambda data: types.Part(inline_data=types.Blob(mime_type="application/x", data=data)),
        st.binary(max_size=32),
    ),
)
_events = st.builds(
    lambda parts, delta, partial: Event(
        author="agent",
        invocation_id="inv",
        content=types.Content(role="model", parts=parts) if parts else None,
        actions=EventActions(state_delta=delta),
        partial=partial,
    ),
    st.lists(_parts, max_size=4),
    states,
    st.none() | st.booleans(),
)


def _fields_set(value: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return (type(value), {n: _fields_set(getattr(value, n)) for n in value.model_fields_set})
    if isinstance(value, list):
        return [_fields_set(item) for item in value]
    return value


def test_the_fast_validator_is_in_use() -> None:
    # Built and self-checked with the google-genai installed here; None would mean it fell
    # back to the normal validator.
    assert event_module._STORED_VALIDATOR is not None


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_events)
def test_stored_events_decode_alike(event: Event) -> None:
    payload = event_to_json(event)
    expected = Event.model_validate_json(payload)
    got = event_from_stored(payload, "s", 0)
    assert type(got) is Event
    assert got == expected
    assert _fields_set(got) == _fields_set(expected)
    assert all(type(p) is types.Part for p in (got.content.parts or [])) if got.content else True


@pytest.mark.parametrize(
    "payload",
    [
        '{"author": "a", "content": {"parts": [{"text": 1}]}}',
        '{"author": "a", "content": {"parts": "not a list"}}',
        '{"author": "a", "timestamp": "soon"}',
        "{not json",
    ],
)
def test_what_the_normal_validator_refuses_is_refused(payload: str) -> None:
    with pytest.raises(pydantic.ValidationError):
        Event.model_validate_json(payload)
    with pytest.raises(UnreadableDataError):
        event_from_stored(payload, "s", 0)


def test_a_validator_that_would_decode_differently_is_not_used() -> None:
    class Renamed(pydantic.BaseModel):
        text: str

        def __init__(self, **data: Any) -> None:  # an __init__ that changes the result
            data["text"] = data["text"].upper()
            super().__init__(**data)

    class Holder(pydantic.BaseModel):
        part: Renamed

    Renamed.__module__ = "google.genai.fake"  # treated like a google-genai model
    assert build(Holder, ['{"part": {"text": "hi"}}']) is None
    assert build(Event, sample_payloads(Event)) is not None


def test_fields_it_does_not_know_are_left_out_where_new_events_refuse_them() -> None:
    # A newer version's field (rolling upgrades): the stored event still reads, without it.
    payload = '{"author": "a", "content": {"parts": [{"text": "t", "unknownField": true}]}}'
    with pytest.raises(pydantic.ValidationError):
        Event.model_validate_json(payload)
    event = event_from_stored(payload, "s", 0)
    assert event.content is not None
    assert event.content.parts is not None
    assert event.content.parts[0].text == "t"
    assert "unknownField" not in event_to_json(event)
