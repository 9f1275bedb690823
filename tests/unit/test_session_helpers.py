"""google-adk's session helpers: InMemorySessionService.sessions and sessions._session_util."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest
from google.genai import types

from adk_runtime.errors import ConfigurationError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.sessions._session_util import decode_model, extract_state_delta


async def test_sessions_is_a_snapshot_keyed_by_app_user_and_id() -> None:
    service = InMemorySessionService()
    first = await service.create_session(app_name="app", user_id="u1", session_id="s1")
    await service.append_event(
        first, Event(author="user", actions=EventActions(state_delta={"k": 1, "user:u": 2}))
    )
    await service.create_session(app_name="app", user_id="u2", session_id="s2")
    await service.create_session(app_name="other", user_id="u1", session_id="s3")
    view = service.sessions
    assert {
        app: {user: sorted(ids) for user, ids in users.items()} for app, users in view.items()
    } == {
        "app": {"u1": ["s1"], "u2": ["s2"]},
        "other": {"u1": ["s3"]},
    }
    snapshot = view["app"]["u1"]["s1"]
    assert snapshot.state == {"k": 1, "user:u": 2}
    assert len(snapshot.events) == 1
    # Changing the view changes nothing stored; appending to one of its sessions works once.
    del view["app"]
    snapshot.state["k"] = 99
    await service.append_event(snapshot, Event(author="user"))
    stored = await service.get_session(app_name="app", user_id="u1", session_id="s1")
    assert stored is not None
    assert (len(stored.events), stored.state["k"]) == (2, 1)
    assert sorted(service.sessions["app"]) == ["u1", "u2"]


def test_decode_model() -> None:
    content = decode_model({"role": "user", "parts": [{"text": "hi"}]}, types.Content)
    assert content is not None
    assert content.parts is not None
    assert (content.role, content.parts[0].text) == ("user", "hi")
    for nothing in (None, "null", 3, True, [1], b"x"):
        assert decode_model(nothing, types.Transcription) is None
    with pytest.raises(pydantic.ValidationError):
        decode_model({"role": 5}, types.Content)


def test_extract_state_delta_splits_by_scope_and_drops_temp() -> None:
    assert extract_state_delta({"a": 1, "app:b": 2, "user:c": 3, "temp:d": 4}) == {
        "app": {"b": 2},
        "user": {"c": 3},
        "session": {"a": 1},
    }
    assert extract_state_delta(None) == {"app": {}, "user": {}, "session": {}}


def test_a_database_service_needs_exactly_one_of_url_and_engine() -> None:
    from adk_runtime.sessions.database_session_service import DatabaseSessionService

    with pytest.raises(ConfigurationError, match="Exactly one of 'db_url' or 'db_engine'"):
        DatabaseSessionService()


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({}, "Exactly one of 'db_url' or 'db_engine'"),
        ({"db_url": "mysql://u@h/db"}, "not a supported database URL"),
        ({"db_url": "postgresql+psycopg2://u:s3cret@h/db"}, "async driver"),
        ({"db_url": "sqlite+aiosqlite:///a.db", "db_engine": object()}, "Exactly one of"),
    ],
)
def test_a_database_url_or_engine_it_cannot_use_is_a_value_error_as_in_google_adk(
    kwargs: dict[str, Any], words: str
) -> None:
    """Code written for google-adk catches ValueError around DatabaseSessionService(...)."""
    from adk_runtime.errors import DatabaseUrlError
    from adk_runtime.sessions.database_session_service import DatabaseSessionService

    with pytest.raises(ValueError, match=words) as caught:
        DatabaseSessionService(**kwargs)
    assert isinstance(caught.value, DatabaseUrlError)
    assert isinstance(caught.value, ConfigurationError)  # and still a ConfigurationError
    assert "s3cret" not in str(caught.value)
