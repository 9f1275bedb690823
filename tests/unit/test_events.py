from __future__ import annotations

import json

import pytest
from google.genai import types

from adk_runtime.errors import SerializationError
from adk_runtime.events import Event, EventActions, event_from_json, event_to_json


def _rich_event() -> Event:
    return Event(
        invocation_id="e-1",
        author="agent",
        branch="root.agent",
        content=types.Content(
            role="model",
            parts=[
                types.Part(text="hello"),
                types.Part(inline_data=types.Blob(data=bytes(range(256)), mime_type="image/png")),
                types.Part(function_call=types.FunctionCall(id="c1", name="f", args={"x": 1})),
            ],
        ),
        actions=EventActions(
            state_delta={"raw": b"\x00\xff", "nested": {"b": [b"\x01"]}},
            artifact_delta={"file.txt": 2},
            transfer_to_agent="other",
            escalate=True,
            agent_state={"step": 3},
        ),
        long_running_tool_ids={"c1"},
        custom_metadata={"trace": b"\x02"},
        error_code="E",
        turn_complete=True,
    )


def test_event_ids_are_uuid4_and_timestamps_are_floats() -> None:
    first, second = Event(), Event()
    assert first.id != second.id
    assert len(first.id) == 36
    assert first.id[14] == "4"
    assert isinstance(first.timestamp, float)


def test_json_round_trip_is_exact_with_bytes() -> None:
    event = _rich_event()
    text = event_to_json(event)
    assert event_from_json(text) == event
    assert event_from_json(text.encode()) == event
    assert event_from_json(json.loads(text)) == event
    decoded = event_from_json(text)
    assert decoded.actions.state_delta["raw"] == b"\x00\xff"
    assert decoded.content is not None
    assert decoded.content.parts is not None
    assert decoded.content.parts[1].inline_data is not None
    assert decoded.content.parts[1].inline_data.data == bytes(range(256))


def test_json_uses_camel_case_and_base64() -> None:
    data = json.loads(event_to_json(_rich_event()))
    assert data["invocationId"] == "e-1"
    assert data["actions"]["stateDelta"]["raw"] == {"$bytes": "AP8="}
    assert data["actions"]["artifactDelta"] == {"file.txt": 2}
    assert data["longRunningToolIds"] == ["c1"]


def test_python_built_events_are_not_decoded() -> None:
    # A user value that looks like a tag stays as it is when built in Python.
    event = Event(actions=EventActions(state_delta={"k": {"$bytes": "AP8="}}))
    assert event.actions.state_delta == {"k": {"$bytes": "AP8="}}
    assert event_from_json(event_to_json(event)).actions.state_delta == {"k": {"$bytes": "AP8="}}


def test_serialization_error_names_the_key_path() -> None:
    event = Event(actions=EventActions(state_delta={"bad": {"inner": object()}}))
    with pytest.raises(SerializationError) as info:
        event_to_json(event)
    assert info.value.path == "state_delta['bad']['inner']"


def test_nul_in_content_is_rejected_but_escaped_backslash_u_is_kept() -> None:
    with pytest.raises(SerializationError):
        event_to_json(Event(content=types.Content(parts=[types.Part(text="a\x00b")])))
    literal = Event(content=types.Content(parts=[types.Part(text="a\\u0000b")]))
    assert event_from_json(event_to_json(literal)) == literal


def test_final_response_rules() -> None:
    text = Event(content=types.Content(parts=[types.Part(text="done")]))
    assert text.is_final_response()
    call = Event(
        content=types.Content(parts=[types.Part(function_call=types.FunctionCall(name="f"))])
    )
    assert not call.is_final_response()
    assert [c.name for c in call.get_function_calls()] == ["f"]
    response = Event(
        content=types.Content(
            parts=[types.Part(function_response=types.FunctionResponse(name="f", response={}))]
        )
    )
    assert not response.is_final_response()
    assert [r.name for r in response.get_function_responses()] == ["f"]
    assert not Event(content=text.content, partial=True).is_final_response()
    skipped = response.model_copy(update={"actions": EventActions(skip_summarization=True)})
    assert skipped.is_final_response()
    long_running = call.model_copy(update={"long_running_tool_ids": {"x"}})
    assert long_running.is_final_response()


def test_actions_merge_and_emptiness() -> None:
    actions = EventActions()
    assert actions.is_empty()
    actions.merge(EventActions(state_delta={"a": 1}, artifact_delta={"f": 0}, escalate=True))
    actions.merge(EventActions(state_delta={"b": 2}, transfer_to_agent="x"))
    assert actions.state_delta == {"a": 1, "b": 2}
    assert actions.artifact_delta == {"f": 0}
    assert actions.escalate is True
    assert actions.transfer_to_agent == "x"
    assert not actions.is_empty()


def test_include_and_exclude_reach_into_free_form_fields_in_json_mode() -> None:
    """state_delta, agent_state, custom_metadata... are dumped through the codec in JSON mode;
    pydantic's include= and exclude= still apply to their keys, as in Python mode."""
    actions = EventActions(
        state_delta={"secret": "s3", "foo": 1, "nested": {"a": 1, "b": b"\x00"}},
        agent_state={"step": 2, "scratch": "x"},
    )
    for mode in ("python", "json"):
        dumped = actions.model_dump(mode=mode, exclude={"state_delta": {"secret": True}})
        assert set(dumped["state_delta"]) == {"foo", "nested"}, mode
        nested = actions.model_dump(mode=mode, exclude={"state_delta": {"nested": {"a"}}})
        assert set(nested["state_delta"]["nested"]) == {"b"}, mode
        only = actions.model_dump(mode=mode, include={"state_delta": {"foo"}, "agent_state": True})
        assert only == {"state_delta": {"foo": 1}, "agent_state": {"step": 2, "scratch": "x"}}
        every = actions.model_dump(mode=mode, exclude={"agent_state": {"__all__"}})
        assert every["agent_state"] == {}, mode
    assert "s3" not in actions.model_dump_json(exclude={"state_delta": {"secret"}})
    event = Event(author="a", custom_metadata={"keep": 1, "drop": 2})
    dumped_event = event.model_dump(mode="json", exclude={"custom_metadata": {"drop"}})
    assert dumped_event["custom_metadata"] == {"keep": 1}
