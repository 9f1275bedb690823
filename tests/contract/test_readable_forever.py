"""Nothing is committed that cannot be read back (contract §4.9), on every backend.

Regression tests for what got through before: non-finite timestamps and numbers, event
content nested too deep; a property test over generated events; and a row that is already
unreadable in storage (written by an older version, or by hand) fails with a typed error
naming the event while delete and export keep working.
"""

from __future__ import annotations

import json
import math
import uuid
from typing import Any

import pytest
from google.genai import types
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adk_runtime.errors import SerializationError, UnreadableDataError
from adk_runtime.events import Event, EventActions
from adk_runtime.events._limits import MAX_EVENT_DEPTH
from adk_runtime.models.cache_metadata import CacheMetadata
from adk_runtime.sessions import BaseSessionService
from adk_runtime.sessions.transfer import ImportCounts, export_lines
from tests.backends import overwrite_stored_event

APP = "readable"


def _nested(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"k": value}
    return value


def _cached(expire_time: float) -> Event:
    # CacheMetadata refuses a non-finite time when built; one built around the checks must
    # still never reach storage.
    metadata = CacheMetadata.model_construct(
        cache_name="cachedContents/c",
        expire_time=expire_time,
        fingerprint="f",
        invocations_used=1,
        contents_count=1,
    )
    return Event(author="x", cache_metadata=metadata)


def _call(args: dict[str, Any]) -> Event:
    call = types.FunctionCall(name="tool", args=args)
    return Event(
        author="agent", content=types.Content(role="model", parts=[types.Part(function_call=call)])
    )


async def _fresh(service: BaseSessionService) -> Any:
    return await service.create_session(app_name=APP, user_id="u", session_id=uuid.uuid4().hex)


async def _stored(service: BaseSessionService, session: Any) -> Any:
    loaded = await service.get_session(app_name=APP, user_id="u", session_id=session.id)
    assert loaded is not None
    return loaded


@pytest.mark.parametrize(
    ("event", "path"),
    [
        (Event(author="x", timestamp=float("inf")), "event.timestamp"),
        (Event(author="x", timestamp=float("-inf")), "event.timestamp"),
        (Event(author="x", timestamp=float("nan")), "event.timestamp"),
        (Event(author="x", avg_logprobs=float("nan")), "event.avg_logprobs"),
        (_call({"a": [1, float("nan")]}), "function_call.args['a'][1]"),
        (_call({"a": {"b": float("inf")}}), "function_call.args['a']['b']"),
        (_cached(float("nan")), "event.cache_metadata.expire_time"),
    ],
    ids=["inf", "-inf", "nan", "avg_logprobs", "args-nan", "args-inf", "cache-expire-nan"],
)
async def test_non_finite_numbers_are_refused_and_nothing_is_written(
    session_service: BaseSessionService, event: Event, path: str
) -> None:
    session = await _fresh(session_service)
    with pytest.raises(SerializationError, match="not a finite number") as caught:
        await session_service.append_event(session, event)
    assert path in caught.value.path
    assert session.revision == 0
    stored = await _stored(session_service, session)
    assert stored.revision == 0
    assert stored.events == []


async def test_content_nested_too_deep_is_refused(session_service: BaseSessionService) -> None:
    session = await _fresh(session_service)
    with pytest.raises(SerializationError, match="levels deep") as caught:
        await session_service.append_event(session, _call({"deep": _nested(200)}))
    assert caught.value.path.startswith("event.content.parts[0].function_call.args['deep']")
    assert (await _stored(session_service, session)).revision == 0


async def test_content_nested_within_the_limit_reads_back(
    session_service: BaseSessionService,
) -> None:
    session = await _fresh(session_service)
    event = _call({"deep": _nested(MAX_EVENT_DEPTH - 10)})
    await session_service.append_event(session, event)
    stored = await _stored(session_service, session)
    assert stored.events[0].content == event.content


async def test_a_null_in_free_form_values_is_kept(session_service: BaseSessionService) -> None:
    # The fast path looks for "null" in the JSON: a real None must still be stored as None.
    session = await _fresh(session_service)
    event = _call({"a": None, "b": [None, 1.5]})
    await session_service.append_event(session, event)
    stored = await _stored(session_service, session)
    assert stored.events[0].content == event.content


_FLOATS = st.floats(allow_nan=True, allow_infinity=True)
_LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), _FLOATS, st.text())
_VALUES = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)


def _storable(value: Any) -> bool:
    """No NaN or infinity, no NUL character (PostgreSQL cannot store one)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, str):
        return "\x00" not in value
    if isinstance(value, dict):
        return all(_storable(k) and _storable(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_storable(v) for v in value)
    return True


@settings(  # each example uses a session of its own, so sharing the service is fine
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    timestamp=_FLOATS,
    args=st.dictionaries(st.text(max_size=8), _VALUES, max_size=4),
    depth=st.integers(0, 220),
    text=st.text(max_size=200),
)
async def test_an_event_is_refused_whole_or_reads_back_equal(
    session_service: BaseSessionService,
    timestamp: float,
    args: dict[str, Any],
    depth: int,
    text: str,
) -> None:
    session = await _fresh(session_service)
    args = {**args, "nested": _nested(depth)}
    part = types.Part(function_call=types.FunctionCall(name="f", args=args))
    event = Event(
        author="agent",
        timestamp=timestamp,
        content=types.Content(role="model", parts=[types.Part(text=text), part]),
    )
    try:
        await session_service.append_event(session, event)
    except SerializationError:
        storable = math.isfinite(timestamp) and _storable(args) and _storable(text)
        assert not (storable and depth < MAX_EVENT_DEPTH - 10)
        assert (await _stored(session_service, session)).revision == 0
        return
    stored = (await _stored(session_service, session)).events
    assert len(stored) == 1
    assert stored[0].timestamp == timestamp
    assert stored[0].content == event.content


# --- a row that is unreadable already ------------------------------------------------------

_POISON = json.dumps({"id": "poisoned-1", "author": "x", "timestamp": None})


async def _poison(service: BaseSessionService, session: Any, payload: str = _POISON) -> None:
    """Overwrite the session's first stored event with ``payload`` (by default: JSON that no
    longer parses back)."""
    await overwrite_stored_event(service, (APP, "u", session.id), 0, payload)


async def test_an_unreadable_row_is_a_typed_error_and_delete_and_export_still_work(
    session_service: BaseSessionService,
) -> None:
    session = await _fresh(session_service)
    await session_service.append_event(session, Event(author="x"))
    await session_service.append_event(
        session, Event(author="y", actions=EventActions(state_delta={"k": 1}))
    )
    await _poison(session_service, session)
    with pytest.raises(UnreadableDataError, match="poisoned-1") as caught:
        await _stored(session_service, session)
    assert session.id in str(caught.value)
    lines = [
        json.loads(line)
        async for line in export_lines(session_service, APP, [("u", session.id)], ImportCounts())
    ]
    exported = next(line for line in lines if line["kind"] == "session")
    assert exported["events"][0] == json.loads(_POISON)
    assert exported["events"][1]["author"] == "y"
    assert exported["state"]
    await session_service.delete_session(app_name=APP, user_id="u", session_id=session.id)
    assert (
        await session_service.get_session(app_name=APP, user_id="u", session_id=session.id) is None
    )


async def test_fields_a_newer_version_stored_are_left_out_not_unreadable(
    session_service: BaseSessionService,
) -> None:
    # A replica already upgraded (adk_runtime, or google-genai under it) stores fields this
    # version does not know, at every level; during a rolling upgrade the others still read.
    session = await _fresh(session_service)
    first = await session_service.append_event(session, Event(author="x"))
    newer = json.loads(first.model_dump_json(by_alias=True, exclude_none=True))
    newer["fieldFromTheFuture"] = {"any": "thing"}
    newer["actions"]["stateDelta"] = {"k": 1}
    newer["actions"]["newAction"] = True
    newer["content"] = {"role": "model", "parts": [{"text": "hi", "newPartKind": {"a": 1}}]}
    await _poison(session_service, session, json.dumps(newer))

    event = (await _stored(session_service, session)).events[0]
    assert event.id == first.id
    assert event.actions.state_delta == {"k": 1}
    assert event.content is not None
    assert event.content.parts is not None
    assert event.content.parts[0].text == "hi"
    assert "fieldFromTheFuture" not in event.model_dump_json(by_alias=True)
    with pytest.raises(ValueError, match="fieldFromTheFuture"):  # new events stay strict
        Event.model_validate(newer)


async def test_a_retry_of_an_event_a_newer_version_stored_is_still_a_retry(
    session_service: BaseSessionService,
) -> None:
    session = await _fresh(session_service)
    event = Event(author="x", invocation_id="e-1", actions=EventActions(state_delta={"k": 1}))
    await session_service.append_event(session, event)
    newer = json.loads(event.model_dump_json(by_alias=True, exclude_none=True))
    newer["fieldFromTheFuture"] = 1
    await _poison(session_service, session, json.dumps(newer))

    result = await session_service.commit_event(session, event.model_copy(deep=True))
    assert result.already_stored
    assert result.event.id == event.id
    assert len((await _stored(session_service, session)).events) == 1


@pytest.mark.parametrize("count", [2**31, 2**63, 2**64, -1])
async def test_an_out_of_range_window_is_a_typed_error(
    session_service: BaseSessionService, count: int
) -> None:
    from adk_runtime.errors import InputValidationError
    from adk_runtime.sessions import GetSessionConfig

    session = await _fresh(session_service)
    config = GetSessionConfig.model_construct(num_recent_events=count)
    with pytest.raises(InputValidationError, match="num_recent_events"):
        await session_service.get_session(
            app_name=APP, user_id="u", session_id=session.id, config=config
        )


async def test_the_largest_window_reads_everything(session_service: BaseSessionService) -> None:
    from adk_runtime.sessions import GetSessionConfig

    session = await _fresh(session_service)
    await session_service.append_event(session, Event(author="x"))
    got = await session_service.get_session(
        app_name=APP,
        user_id="u",
        session_id=session.id,
        config=GetSessionConfig(num_recent_events=2**31 - 1),
    )
    assert got is not None
    assert len(got.events) == 1


# --- fields added with google-adk 2's Event (node info, route, log probabilities) ----------


def _with_new_fields() -> Event:
    candidate = types.LogprobsResultCandidate(token="hi", token_id=4, log_probability=-0.25)
    return Event(
        author="agent",
        invocation_id="e-new",
        message=types.Content(role="model", parts=[types.Part(text="hi")]),
        node_path="wf@1/step@2",
        route=["yes", 2, False],
        state={"k": b"\x00"},
        avg_logprobs=-0.25,
        logprobs_result=types.LogprobsResult(
            chosen_candidates=[candidate],
            top_candidates=[types.LogprobsResultTopCandidates(candidates=[candidate])],
            log_probability_sum=-0.25,
        ),
        input_transcription=types.Transcription(text="said", finished=True),
        long_running_tool_ids={"b", "a"},
    )


async def test_an_event_with_node_info_route_and_logprobs_reads_back_equal(
    session_service: BaseSessionService,
) -> None:
    session = await _fresh(session_service)
    event = _with_new_fields()
    event.node_info.output_for = ["wf@1"]
    event.node_info.message_as_output = True
    await session_service.append_event(session, event)
    (stored,) = (await _stored(session_service, session)).events
    assert stored == event
    assert stored.node_info.run_id == "2"
    assert stored.node_info.parent_run_id == "1"
    assert stored.actions.route == ["yes", 2, False]
    assert stored.logprobs_result == event.logprobs_result


async def test_an_event_stored_before_node_info_and_route_existed_reads_back(
    session_service: BaseSessionService,
) -> None:
    session = await _fresh(session_service)
    await session_service.append_event(session, Event(author="x"))
    old = {
        "id": "old-1",
        "author": "agent",
        "invocationId": "e-old",
        "timestamp": 1.5,
        "content": {"role": "model", "parts": [{"text": "from before"}]},
        "actions": {"stateDelta": {"k": 1}, "artifactDelta": {}},
    }
    await _poison(session_service, session, json.dumps(old))
    (event,) = (await _stored(session_service, session)).events
    assert event.id == "old-1"
    assert event.node_info.path == ""
    assert event.actions.route is None
    assert event.logprobs_result is None
    assert event.message is not None
