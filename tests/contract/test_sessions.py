"""The SessionService contract (contract §4), run on every backend through one fixture."""

from __future__ import annotations

import datetime
import uuid
from typing import Any

import pytest
from google.genai import types

from adk_runtime.errors import (
    AlreadyExistsError,
    EventIdConflictError,
    InputValidationError,
    SerializationError,
    SessionNotFoundError,
    StaleSessionError,
)
from adk_runtime.events import Event, EventActions
from adk_runtime.models.cache_metadata import CacheMetadata
from adk_runtime.sessions import BaseSessionService, GetSessionConfig, Session

APP = "app"


def _event(text: str = "hi", delta: dict[str, Any] | None = None, **kwargs: Any) -> Event:
    return Event(
        invocation_id="e-1",
        author="agent",
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=dict(delta or {})),
        **kwargs,
    )


async def _reload(service: BaseSessionService, session: Session) -> Session:
    loaded = await service.get_session(
        app_name=session.app_name, user_id=session.user_id, session_id=session.id
    )
    assert loaded is not None
    return loaded


# --- create / get -------------------------------------------------------------------------


async def test_create_and_get_round_trip(session_service: BaseSessionService) -> None:
    created = await session_service.create_session(
        app_name=APP, user_id="u1", session_id="s1", state={"k": "v"}
    )
    assert (created.id, created.app_name, created.user_id) == ("s1", APP, "u1")
    assert created.state == {"k": "v"}
    assert created.events == []
    assert created.revision == 0
    loaded = await _reload(session_service, created)
    assert loaded.state == {"k": "v"}
    assert loaded.revision == 0
    assert loaded.last_update_time == pytest.approx(created.last_update_time)


async def test_generated_session_id_is_a_uuid(session_service: BaseSessionService) -> None:
    created = await session_service.create_session(app_name=APP, user_id="u1")
    assert str(uuid.UUID(created.id)) == created.id
    assert await _reload(session_service, created) is not None


async def test_missing_session_is_none(session_service: BaseSessionService) -> None:
    got = await session_service.get_session(app_name=APP, user_id="u1", session_id="nope")
    assert got is None


async def test_create_splits_state_by_scope(session_service: BaseSessionService) -> None:
    await session_service.create_session(
        app_name=APP,
        user_id="u1",
        session_id="s1",
        state={"k": 1, "app:a": 2, "user:u": 3, "temp:t": 4},
    )
    other_user = await session_service.create_session(app_name=APP, user_id="u2", session_id="s")
    same_user = await session_service.create_session(app_name=APP, user_id="u1", session_id="s2")
    assert (await _reload(session_service, other_user)).state == {"app:a": 2}
    assert (await _reload(session_service, same_user)).state == {"app:a": 2, "user:u": 3}
    first = await session_service.get_session(app_name=APP, user_id="u1", session_id="s1")
    assert first is not None
    assert first.state == {"k": 1, "app:a": 2, "user:u": 3}


async def test_duplicate_create_fails_and_changes_nothing(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(
        app_name=APP, user_id="u1", session_id="s1", state={"a": 1}
    )
    with pytest.raises(AlreadyExistsError):
        await session_service.create_session(
            app_name=APP, user_id="u1", session_id="s1", state={"a": 2, "user:x": 1}
        )
    loaded = await session_service.get_session(app_name=APP, user_id="u1", session_id="s1")
    assert loaded is not None
    assert loaded.state == {"a": 1}


# --- isolation ----------------------------------------------------------------------------


async def test_same_id_under_two_users_is_two_sessions(session_service: BaseSessionService) -> None:
    a = await session_service.create_session(app_name=APP, user_id="alice", session_id="s")
    b = await session_service.create_session(app_name=APP, user_id="bob", session_id="s")
    await session_service.append_event(a, _event("for alice", {"secret": "a"}))
    loaded_b = await _reload(session_service, b)
    assert loaded_b.events == []
    assert "secret" not in loaded_b.state
    await session_service.delete_session(app_name=APP, user_id="bob", session_id="s")
    assert len((await _reload(session_service, a)).events) == 1


async def test_apps_are_isolated(session_service: BaseSessionService) -> None:
    s = await session_service.create_session(app_name="one", user_id="u", session_id="s")
    await session_service.append_event(s, _event(delta={"app:k": 1, "user:k": 2}))
    other = await session_service.create_session(app_name="two", user_id="u", session_id="s")
    assert (await _reload(session_service, other)).state == {}
    assert await session_service.get_session(app_name="two", user_id="u", session_id="x") is None


# --- append -------------------------------------------------------------------------------


async def test_append_commits_event_state_and_revision(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    event = _event(delta={"k": "v", "app:a": 1, "user:u": 2})
    returned = await session_service.append_event(session, event)
    assert returned is event
    assert session.revision == 1
    assert session.events == [event]
    assert session.state == {"k": "v", "app:a": 1, "user:u": 2}
    loaded = await _reload(session_service, session)
    assert loaded.revision == 1
    assert [e.id for e in loaded.events] == [event.id]
    assert loaded.events[0] == event
    assert loaded.state == {"k": "v", "app:a": 1, "user:u": 2}


async def test_app_and_user_state_are_shared(session_service: BaseSessionService) -> None:
    s1 = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    await session_service.append_event(s1, _event(delta={"app:a": "A", "user:u": "U", "k": 1}))
    same_user = await session_service.create_session(app_name=APP, user_id="u1", session_id="s2")
    other_user = await session_service.create_session(app_name=APP, user_id="u2", session_id="s3")
    assert same_user.state == {"app:a": "A", "user:u": "U"}
    assert other_user.state == {"app:a": "A"}


async def test_revision_counts_appends_and_order_is_commit_order(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    events = [_event(str(i), timestamp=100.0 - (i % 3)) for i in range(7)]
    for event in events:
        await session_service.append_event(session, event)
    assert session.revision == 7
    loaded = await _reload(session_service, session)
    assert loaded.revision == 7
    assert [e.id for e in loaded.events] == [e.id for e in events]


async def test_equal_timestamps_keep_insertion_order(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    events = [_event(str(i), timestamp=5.0) for i in range(10)]
    for event in events:
        await session_service.append_event(session, event)
    loaded = await _reload(session_service, session)
    assert [e.content.parts[0].text for e in loaded.events if e.content and e.content.parts] == [
        str(i) for i in range(10)
    ]


async def test_state_merge_is_shallow_and_none_is_stored(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(
        app_name=APP, user_id="u1", session_id="s1", state={"d": {"a": 1, "b": 2}, "x": 1}
    )
    await session_service.append_event(session, _event(delta={"d": {"c": 3}, "x": None}))
    loaded = await _reload(session_service, session)
    assert loaded.state == {"d": {"c": 3}, "x": None}


async def test_values_round_trip_exactly(session_service: BaseSessionService) -> None:
    moment = datetime.datetime(2024, 5, 1, 12, 30, tzinfo=datetime.timezone.utc)
    values: dict[str, Any] = {
        "bytes": b"\x00\xffbin",
        "when": moment,
        "big": 2**80,
        "neg_zero": -0.0,
        "huge_float": 1e300,
        "float": 0.1,
        "nested": {"list": [1, "two", None, True, {"$bytes": "not a tag"}]},
        "unicode": "héllo ✓ 𝄞",
        "tuple": (1, 2),
    }
    session = await session_service.create_session(
        app_name=APP, user_id="u1", session_id="s1", state={"init": b"\x01"}
    )
    event = _event(delta={**values, "user:bytes": b"\x02", "app:when": moment})
    await session_service.append_event(session, event)
    loaded = await _reload(session_service, session)
    expected = {
        **values,
        "tuple": [1, 2],
        "init": b"\x01",
        "user:bytes": b"\x02",
        "app:when": moment,
    }
    assert loaded.state == expected
    assert str(loaded.state["neg_zero"]) == "-0.0"
    assert isinstance(loaded.state["huge_float"], float)
    assert loaded.events[0].actions.state_delta["bytes"] == b"\x00\xffbin"


async def test_binary_content_round_trips(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    blob = types.Part(inline_data=types.Blob(data=bytes(range(256)), mime_type="image/png"))
    event = Event(author="user", content=types.Content(role="user", parts=[blob]))
    await session_service.append_event(session, event)
    loaded = await _reload(session_service, session)
    assert loaded.events[0] == event


async def test_cache_metadata_round_trips(session_service: BaseSessionService) -> None:
    # The context cache a model response used: the next invocation reads it back to reuse it.
    active = CacheMetadata(
        cache_name="projects/p/locations/l/cachedContents/123",
        expire_time=1_700_000_600.123456,
        fingerprint="0123456789abcdef",
        invocations_used=3,
        contents_count=7,
        created_at=1_700_000_000.5,
    )
    fingerprint_only = CacheMetadata(fingerprint="fedcba9876543210", contents_count=0)
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    for metadata in (active, fingerprint_only):
        await session_service.append_event(session, _event(cache_metadata=metadata))
    loaded = await _reload(session_service, session)
    assert [event.cache_metadata for event in loaded.events] == [active, fingerprint_only]
    assert loaded.events == session.events


async def test_temp_keys_are_applied_in_memory_but_never_stored(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    event = _event(delta={"temp:scratch": 1, "kept": 2})
    await session_service.append_event(session, event)
    assert session.state["temp:scratch"] == 1
    assert event.actions.state_delta == {"kept": 2}
    loaded = await _reload(session_service, session)
    assert loaded.state == {"kept": 2}
    assert loaded.events[0].actions.state_delta == {"kept": 2}


async def test_partial_events_are_not_stored(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    event = _event("chunk", {"k": 1}, partial=True)
    returned = await session_service.append_event(session, event)
    assert returned is event
    assert session.revision == 0
    assert session.events == []
    assert "k" not in session.state
    loaded = await _reload(session_service, session)
    assert loaded.events == []
    assert loaded.state == {}


async def test_stale_writer_fails_and_writes_nothing(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    first = await _reload(session_service, session)
    second = await _reload(session_service, session)
    await session_service.append_event(first, _event("one", {"k": 1}))
    with pytest.raises(StaleSessionError) as info:
        await session_service.append_event(second, _event("two", {"k": 2, "user:u": 1}))
    assert isinstance(info.value, ValueError)
    assert "modified in storage" in str(info.value)  # google-adk's phrase
    assert "after this object was loaded" in str(info.value)
    assert second.revision == 0
    assert second.events == []
    loaded = await _reload(session_service, session)
    assert loaded.revision == 1
    assert [e.content.parts[0].text for e in loaded.events if e.content and e.content.parts] == [
        "one"
    ]
    assert loaded.state == {"k": 1}


async def test_reappending_a_stored_event_is_idempotent(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    event = _event("once", {"counter": 1})
    await session_service.append_event(session, event)
    again = await session_service.append_event(session, event.model_copy(deep=True))
    assert again.id == event.id
    assert session.revision == 1
    assert len(session.events) == 1
    loaded = await _reload(session_service, session)
    assert loaded.revision == 1
    assert [e.id for e in loaded.events] == [event.id]


async def test_retry_after_lost_acknowledgement_catches_up(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    behind = await _reload(session_service, session)
    event = _event("retry me", {"k": "v"})
    await session_service.append_event(session, event)
    # The caller never saw the acknowledgement: it retries with its old session object.
    stored = await session_service.append_event(behind, event.model_copy(deep=True))
    assert stored.id == event.id
    assert behind.revision == 1
    assert behind.state == {"k": "v"}
    await session_service.append_event(behind, _event("next"))
    loaded = await _reload(session_service, session)
    assert loaded.revision == 2
    assert len(loaded.events) == 2


async def test_a_retry_may_carry_a_new_timestamp_and_invocation_id(
    session_service: BaseSessionService,
) -> None:
    """A message sent again under its idempotency key is a new Event object of a new turn."""
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    event = _event("same words", {"k": 1})
    await session_service.append_event(session, event)
    retry = event.model_copy(deep=True, update={"timestamp": event.timestamp + 5})
    retry.invocation_id = "e-retry"
    stored = await session_service.append_event(session, retry)
    assert (stored.invocation_id, stored.timestamp) == ("e-1", event.timestamp)
    assert (await _reload(session_service, session)).revision == 1


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(
            {"content": types.Content(role="model", parts=[types.Part(text="other")])}, id="content"
        ),
        pytest.param({"author": "someone_else"}, id="author"),
        pytest.param({"actions": EventActions(state_delta={"counter": 2})}, id="state_delta"),
        pytest.param({"branch": "root.other"}, id="branch"),
    ],
)
async def test_an_event_id_stored_for_another_event_is_refused(
    session_service: BaseSessionService, change: dict[str, Any]
) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    first = _event("first", {"counter": 1})
    await session_service.append_event(session, first)
    behind = await _reload(session_service, session)
    other = first.model_copy(deep=True, update=change)
    for writer in (session, behind):  # the caller at the tip, and one behind it
        with pytest.raises(EventIdConflictError) as info:
            await session_service.append_event(writer, other)
        assert info.value.event_id == first.id
        assert "other" not in str(info.value)  # no payload in the message
    assert session.revision == 1
    assert session.state == {"counter": 1}
    loaded = await _reload(session_service, session)
    assert loaded.revision == 1
    assert loaded.state == {"counter": 1}
    assert [e.content.parts[0].text for e in loaded.events if e.content and e.content.parts] == [
        "first"
    ]


async def test_append_to_deleted_session_fails(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    await session_service.delete_session(app_name=APP, user_id="u1", session_id="s1")
    with pytest.raises(SessionNotFoundError):
        await session_service.append_event(session, _event())
    assert await session_service.get_session(app_name=APP, user_id="u1", session_id="s1") is None


# --- bad input ----------------------------------------------------------------------------


async def test_unserializable_delta_names_the_key_and_writes_nothing(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    event = _event(delta={"ok": 1, "bad": {"inner": object()}, "temp:t": 1})
    with pytest.raises(SerializationError) as info:
        await session_service.append_event(session, event)
    assert info.value.path == "state_delta['bad']['inner']"
    assert "state_delta['bad']['inner']" in str(info.value)
    assert session.revision == 0
    assert session.state == {}
    assert event.actions.state_delta["temp:t"] == 1
    loaded = await _reload(session_service, session)
    assert loaded.revision == 0
    assert loaded.events == []
    assert loaded.state == {}


@pytest.mark.parametrize(
    ("value", "path"),
    [
        ({1, 2}, "state_delta['user:s']"),
        (float("nan"), "state_delta['user:s']"),
        ({"k": [1, object()]}, "state_delta['user:s']['k'][1]"),
        ("nul\x00char", "state_delta['user:s']"),
        ({1: "int key"}, "state_delta['user:s']"),
    ],
)
async def test_unstorable_values_are_rejected(
    session_service: BaseSessionService, value: Any, path: str
) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    with pytest.raises(SerializationError) as info:
        await session_service.append_event(session, _event(delta={"user:s": value}))
    assert info.value.path == path
    other = await session_service.create_session(app_name=APP, user_id="u1", session_id="s2")
    assert other.state == {}
    assert (await _reload(session_service, session)).revision == 0


async def test_unserializable_initial_state_creates_nothing(
    session_service: BaseSessionService,
) -> None:
    with pytest.raises(SerializationError) as info:
        await session_service.create_session(
            app_name=APP, user_id="u1", session_id="s1", state={"a": {"b": object()}}
        )
    assert info.value.path == "state['a']['b']"
    assert await session_service.get_session(app_name=APP, user_id="u1", session_id="s1") is None


async def test_unserializable_scoped_initial_state_names_the_prefixed_key(
    session_service: BaseSessionService,
) -> None:
    with pytest.raises(SerializationError) as info:
        await session_service.create_session(
            app_name=APP, user_id="u1", session_id="s1", state={"user:k": {"x": object()}}
        )
    assert info.value.path == "state['user:k']['x']"
    assert await session_service.get_session(app_name=APP, user_id="u1", session_id="s1") is None


@pytest.mark.parametrize(
    "bad_id", ["", "x" * 129, "new\nline", "nul\x00", "tab\tbed", "del\x7f"], ids=repr
)
async def test_malformed_ids_are_rejected(session_service: BaseSessionService, bad_id: str) -> None:
    with pytest.raises(InputValidationError):
        await session_service.create_session(app_name=APP, user_id="u1", session_id=bad_id)
    with pytest.raises(InputValidationError):
        await session_service.create_session(app_name=bad_id, user_id="u1", session_id="s")
    with pytest.raises(InputValidationError):
        await session_service.create_session(app_name=APP, user_id=bad_id, session_id="s")
    with pytest.raises(InputValidationError):
        await session_service.get_session(app_name=APP, user_id=bad_id, session_id="s")
    with pytest.raises(InputValidationError):
        await session_service.list_sessions(app_name=bad_id)
    with pytest.raises(InputValidationError):
        await session_service.delete_session(app_name=APP, user_id="u1", session_id=bad_id)
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="ok")
    with pytest.raises(InputValidationError):
        await session_service.append_event(session, _event(id=bad_id))
    assert (await _reload(session_service, session)).events == []
    listed = await session_service.list_sessions(app_name=APP)
    assert [s.id for s in listed.sessions] == ["ok"]


async def test_id_of_128_characters_is_accepted(session_service: BaseSessionService) -> None:
    long_id = "s" * 128
    await session_service.create_session(app_name=APP, user_id="u" * 128, session_id=long_id)
    assert await session_service.get_session(app_name=APP, user_id="u" * 128, session_id=long_id)


# --- reads --------------------------------------------------------------------------------


async def test_returned_sessions_are_copies(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(
        app_name=APP, user_id="u1", session_id="s1", state={"d": {"a": 1}}
    )
    await session_service.append_event(session, _event(delta={"x": [1]}))
    loaded = await _reload(session_service, session)
    loaded.state["d"]["a"] = 999
    loaded.state["x"].append(2)
    loaded.events.clear()
    session.state["d"]["a"] = 777
    again = await _reload(session_service, session)
    assert again.state == {"d": {"a": 1}, "x": [1]}
    assert len(again.events) == 1


async def test_num_recent_events(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    events = [_event(str(i), {"i": i}) for i in range(6)]
    for event in events:
        await session_service.append_event(session, event)
    for k, expected in [(3, events[3:]), (0, []), (10, events)]:
        got = await session_service.get_session(
            app_name=APP,
            user_id="u1",
            session_id="s1",
            config=GetSessionConfig(num_recent_events=k),
        )
        assert got is not None
        assert [e.id for e in got.events] == [e.id for e in expected]
        assert got.state == {"i": 5}
        assert got.revision == 6


async def test_after_timestamp(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    events = [_event(str(i), timestamp=1000.0 + i) for i in range(5)]
    for event in events:
        await session_service.append_event(session, event)
    got = await session_service.get_session(
        app_name=APP,
        user_id="u1",
        session_id="s1",
        config=GetSessionConfig(after_timestamp=1002.0),
    )
    assert got is not None
    assert [e.id for e in got.events] == [e.id for e in events[2:]]
    both = await session_service.get_session(
        app_name=APP,
        user_id="u1",
        session_id="s1",
        config=GetSessionConfig(after_timestamp=1001.0, num_recent_events=2),
    )
    assert both is not None
    assert [e.id for e in both.events] == [e.id for e in events[3:]]


# --- list ---------------------------------------------------------------------------------


async def test_list_returns_sessions_without_events(session_service: BaseSessionService) -> None:
    s1 = await session_service.create_session(
        app_name=APP, user_id="u1", session_id="s1", state={"k": 1}
    )
    await session_service.append_event(s1, _event(delta={"user:u": 2, "app:a": 3}))
    await session_service.create_session(app_name=APP, user_id="u2", session_id="s2")
    await session_service.create_session(app_name="other", user_id="u1", session_id="s3")
    mine = await session_service.list_sessions(app_name=APP, user_id="u1")
    assert [s.id for s in mine.sessions] == ["s1"]
    assert mine.sessions[0].events == []
    assert mine.sessions[0].state == {"k": 1, "user:u": 2, "app:a": 3}
    assert mine.sessions[0].revision == 1
    assert mine.next_page_token is None
    everyone = await session_service.list_sessions(app_name=APP)
    assert sorted((s.user_id, s.id) for s in everyone.sessions) == [("u1", "s1"), ("u2", "s2")]


async def test_list_is_paginated_without_gaps_or_repeats(
    session_service: BaseSessionService,
) -> None:
    ids = [f"s{i:02d}" for i in range(23)]
    for session_id in ids:
        await session_service.create_session(app_name=APP, user_id="u1", session_id=session_id)
    seen: list[str] = []
    token: str | None = None
    pages = 0
    while True:
        page = await session_service.list_sessions(
            app_name=APP, user_id="u1", page_size=5, page_token=token
        )
        pages += 1
        assert len(page.sessions) <= 5
        seen.extend(s.id for s in page.sessions)
        token = page.next_page_token
        if token is None:
            break
    assert pages == 5
    assert sorted(seen) == ids
    assert len(set(seen)) == len(seen)


async def test_list_orders_most_recently_updated_first(
    session_service: BaseSessionService,
) -> None:
    for session_id in ["a", "b", "c"]:
        await session_service.create_session(app_name=APP, user_id="u1", session_id=session_id)
    a = await session_service.get_session(app_name=APP, user_id="u1", session_id="a")
    assert a is not None
    await session_service.append_event(a, _event())
    listed = await session_service.list_sessions(app_name=APP, user_id="u1")
    assert listed.sessions[0].id == "a"


@pytest.mark.parametrize("page_size", [0, -1, 10_001])
async def test_list_rejects_bad_page_size(
    session_service: BaseSessionService, page_size: int
) -> None:
    with pytest.raises(InputValidationError):
        await session_service.list_sessions(app_name=APP, page_size=page_size)


# the last three: well-formed, with update times no session can have (1e300, -1e300, NaN)
@pytest.mark.parametrize(
    "token",
    [
        "garbage!",
        "bm90IGEgbGlzdA",
        "W10",
        "WzFlKzMwMCwidSIsInMiXQ",
        "Wy0xZSszMDAsInUiLCJzIl0",
        "W05hTiwidSIsInMiXQ",
    ],
)
async def test_list_rejects_foreign_page_tokens(
    session_service: BaseSessionService, token: str
) -> None:
    with pytest.raises(InputValidationError):
        await session_service.list_sessions(app_name=APP, page_size=2, page_token=token)


# --- delete -------------------------------------------------------------------------------


async def test_delete_removes_session_and_events_but_keeps_app_and_user_state(
    session_service: BaseSessionService,
) -> None:
    session = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    await session_service.append_event(session, _event(delta={"k": 1, "app:a": 1, "user:u": 1}))
    await session_service.delete_session(app_name=APP, user_id="u1", session_id="s1")
    assert await session_service.get_session(app_name=APP, user_id="u1", session_id="s1") is None
    assert (await session_service.list_sessions(app_name=APP)).sessions == []
    again = await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    assert again.state == {"app:a": 1, "user:u": 1}
    loaded = await _reload(session_service, again)
    assert loaded.events == []
    assert loaded.revision == 0
    await session_service.append_event(loaded, _event())
    assert (await _reload(session_service, again)).revision == 1


async def test_delete_missing_session_is_a_no_op(session_service: BaseSessionService) -> None:
    await session_service.delete_session(app_name=APP, user_id="u1", session_id="never")
    assert (await session_service.list_sessions(app_name=APP)).sessions == []
