"""Property tests: random values, ids and events round-trip exactly on every backend.

Runs through the shared ``session_service`` fixture (so on every backend of
``tests/backends.py``). Unstorable input fails with a typed error and writes nothing. More
examples run under ``--run-reliability`` (see ``conftest.py``).
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from google.genai import types
from hypothesis import given
from hypothesis import strategies as st

from adk_runtime.errors import InputValidationError, SerializationError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, GetSessionConfig
from tests.reliability import values


def _app() -> str:
    return f"app-{uuid.uuid4().hex[:8]}"


def _assert_same_state(got: dict[str, Any], want: dict[str, Any]) -> None:
    assert got.keys() == want.keys()
    for key in want:
        assert values.same(got[key], want[key]), (key, got[key], want[key])


@given(state=values.states)
async def test_state_round_trips_exactly(
    session_service: BaseSessionService, state: dict[str, Any]
) -> None:
    app = _app()
    created = await session_service.create_session(app_name=app, user_id="u", state=state)
    want = values.expected_state(state)
    _assert_same_state(created.state, want)
    loaded = await session_service.get_session(app_name=app, user_id="u", session_id=created.id)
    assert loaded is not None
    _assert_same_state(loaded.state, want)
    listed = await session_service.list_sessions(app_name=app, user_id="u")
    assert [s.id for s in listed.sessions] == [created.id]
    _assert_same_state(listed.sessions[0].state, want)


@given(
    delta=values.states, text=values.text, metadata=st.dictionaries(values.text, values.storable)
)
async def test_event_and_delta_round_trip_exactly(
    session_service: BaseSessionService,
    delta: dict[str, Any],
    text: str,
    metadata: dict[str, Any],
) -> None:
    app = _app()
    session = await session_service.create_session(app_name=app, user_id="u")
    event = Event(
        author="agent",
        invocation_id="inv",
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        custom_metadata=metadata,
        actions=EventActions(state_delta=dict(delta)),
    )
    await session_service.append_event(session, event)
    loaded = await session_service.get_session(
        app_name=app, user_id="u", session_id=session.id, config=GetSessionConfig()
    )
    assert loaded is not None
    assert loaded.revision == 1
    (stored,) = loaded.events
    assert stored.id == event.id
    assert stored.content is not None
    assert stored.content.parts
    assert stored.content.parts[0].text == text
    assert stored.custom_metadata is not None
    # custom_metadata is not state: a "temp:" key there is stored like any other key.
    want_metadata = {key: values.normalize(value) for key, value in metadata.items()}
    _assert_same_state(stored.custom_metadata, want_metadata)
    _assert_same_state(stored.actions.state_delta, values.expected_state(delta))
    _assert_same_state(loaded.state, values.expected_state(delta))


@given(value=values.unstorable, scope=st.sampled_from(["", "app:", "user:"]))
async def test_unstorable_value_is_refused_and_writes_nothing(
    session_service: BaseSessionService, value: Any, scope: str
) -> None:
    app = _app()
    key = f"{scope}bad"
    with pytest.raises(SerializationError) as raised:
        await session_service.create_session(
            app_name=app, user_id="u", session_id="s", state={key: value}
        )
    assert "bad" in str(raised.value)
    assert await session_service.get_session(app_name=app, user_id="u", session_id="s") is None
    session = await session_service.create_session(app_name=app, user_id="u", session_id="s")
    event = Event(author="agent", actions=EventActions(state_delta={"ok": 1, key: value}))
    with pytest.raises(SerializationError):
        await session_service.append_event(session, event)
    loaded = await session_service.get_session(app_name=app, user_id="u", session_id="s")
    assert loaded is not None
    assert (loaded.revision, loaded.events, loaded.state) == (0, [], {})


@given(app=values.ids, user=values.ids, sid=values.ids, event_id=values.ids)
async def test_ids_round_trip_exactly(
    session_service: BaseSessionService, app: str, user: str, sid: str, event_id: str
) -> None:
    suffix = uuid.uuid4().hex[:6]
    app = app[: 128 - 6] + suffix
    created = await session_service.create_session(app_name=app, user_id=user, session_id=sid)
    assert (created.app_name, created.user_id, created.id) == (app, user, sid)
    await session_service.append_event(created, Event(id=event_id, author="agent"))
    loaded = await session_service.get_session(app_name=app, user_id=user, session_id=sid)
    assert loaded is not None
    assert [e.id for e in loaded.events] == [event_id]
    listed = await session_service.list_sessions(app_name=app, user_id=user)
    assert [(s.app_name, s.user_id, s.id) for s in listed.sessions] == [(app, user, sid)]
    await session_service.delete_session(app_name=app, user_id=user, session_id=sid)
    assert await session_service.get_session(app_name=app, user_id=user, session_id=sid) is None


@given(bad=values.bad_ids, where=st.sampled_from(["app_name", "user_id", "session_id"]))
async def test_malformed_ids_are_refused_and_write_nothing(
    session_service: BaseSessionService, bad: str, where: str
) -> None:
    app = _app()
    key = {"app_name": app, "user_id": "u", "session_id": "s"}
    key[where] = bad
    with pytest.raises(InputValidationError):
        await session_service.create_session(**key, state={"user:k": 1, "app:k": 1})
    probe = await session_service.create_session(app_name=app, user_id="u", session_id="probe")
    assert probe.state == {}
    with pytest.raises(InputValidationError):
        await session_service.append_event(probe, Event(id=bad, author="agent"))
    loaded = await session_service.get_session(app_name=app, user_id="u", session_id="probe")
    assert loaded is not None
    assert loaded.revision == 0


@pytest.mark.parametrize("depth", [50, 99])
async def test_deep_nesting_round_trips(session_service: BaseSessionService, depth: int) -> None:
    app = _app()
    value = values.deep(depth, "leaf")
    session = await session_service.create_session(app_name=app, user_id="u", state={"d": value})
    await session_service.append_event(
        session, Event(author="a", actions=EventActions(state_delta={"e": value}))
    )
    loaded = await session_service.get_session(app_name=app, user_id="u", session_id=session.id)
    assert loaded is not None
    assert values.same(loaded.state["d"], value)
    assert values.same(loaded.state["e"], value)
    assert values.same(loaded.events[0].actions.state_delta["e"], value)


async def test_too_deep_nesting_is_refused_and_writes_nothing(
    session_service: BaseSessionService,
) -> None:
    # Deeper than the stored event JSON can be parsed back: refused up front, never a session
    # that can no longer be read.
    app = _app()
    value = values.deep(250, "leaf")
    with pytest.raises(SerializationError):
        await session_service.create_session(app_name=app, user_id="u", state={"d": value})
    session = await session_service.create_session(app_name=app, user_id="u")
    with pytest.raises(SerializationError):
        await session_service.append_event(
            session, Event(author="a", actions=EventActions(state_delta={"e": value}))
        )
    loaded = await session_service.get_session(app_name=app, user_id="u", session_id=session.id)
    assert loaded is not None
    assert (loaded.revision, loaded.events, loaded.state) == (0, [], {})
