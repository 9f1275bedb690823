"""Every field of google-adk's Event, at any depth, reads back from every store as google-adk's
own InMemorySessionService keeps it.

The event is built from the models' fields at run time (``field_values.filled``), so a field a
google-adk release adds is written and compared here before a user meets it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.openapi.models import APIKey, APIKeyIn
from google.adk.artifacts.base_artifact_service import ArtifactVersion as GoogleArtifactVersion
from google.adk.auth.auth_tool import AuthConfig
from google.adk.events import Event as GoogleEvent
from google.adk.events import EventActions as GoogleActions
from google.adk.memory.memory_entry import MemoryEntry as GoogleMemoryEntry
from google.adk.sessions import InMemorySessionService as GoogleInMemory
from google.adk.sessions import Session as GoogleSession
from pydantic import BaseModel

from adk_runtime.artifacts.base import ArtifactVersion
from adk_runtime.events import Event, EventActions
from adk_runtime.integrations.google_adk import (
    DurableSessionService,
    from_google_event,
    to_google_event,
)
from adk_runtime.memory.base import MemoryEntry
from adk_runtime.sessions import Session
from tests.integrations.field_values import filled
from tests.integrations.support import APP, store_uri
from tests.stores import durable_params

DEEP = ("google.adk", "adk_runtime")
"""Whose models are filled at every depth (google-genai's, shared as they are, one level)."""


def _auth_configs() -> dict[str, AuthConfig]:
    scheme = APIKey.model_validate({"in": APIKeyIn.header, "name": "X-Key"})
    return {"call-1": AuthConfig(auth_scheme=scheme, credential_key="my-key")}


OVERRIDES = {("EventActions", "requested_auth_configs"): _auth_configs}
OUR_OVERRIDES = {  # adk_runtime keeps them as google-adk's JSON of them
    ("EventActions", "requested_auth_configs"): lambda: {
        key: config.model_dump(mode="json", by_alias=True)
        for key, config in _auth_configs().items()
    }
}


def full_google_event(event_id: str) -> GoogleEvent:
    event = filled(GoogleEvent, DEEP, OVERRIDES)
    assert isinstance(event, GoogleEvent)
    return event.model_copy(update={"id": event_id, "partial": False})  # partial: never stored


def _defaults(model: BaseModel, path: str = "") -> list[str]:
    """The fields of ``model`` (and of its google-adk / adk_runtime models) left at default."""
    found: list[str] = []
    for name, field in type(model).model_fields.items():
        value = getattr(model, name)
        here = f"{path}.{name}"
        if not field.is_required() and value == field.get_default(call_default_factory=True):
            found.append(here)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, BaseModel) and type(item).__module__.startswith(DEEP):
                found.extend(_defaults(item, here))
    return found


def test_the_generated_event_sets_every_field() -> None:
    assert _defaults(full_google_event("e-1")) == []
    assert {"render_ui_widgets", "set_model_response"} <= set(GoogleActions.model_fields)
    ours = filled(Event, DEEP, OUR_OVERRIDES)
    assert _defaults(ours) == []


def test_every_adk_runtime_field_is_a_google_adk_field() -> None:
    """Our events are read by google-adk code: it has a place for everything we store."""
    for ours, theirs in ((Event, GoogleEvent), (EventActions, GoogleActions)):
        assert set(ours.model_fields) <= set(theirs.model_fields), ours.__name__


def test_conversion_round_trips_both_ways() -> None:
    event = full_google_event("e-1")
    assert to_google_event(from_google_event(event)) == event
    ours = filled(Event, DEEP, OUR_OVERRIDES)
    assert isinstance(ours, Event)
    assert from_google_event(to_google_event(ours)) == ours


def _dumped(events: list[Any]) -> list[dict[str, Any]]:
    return [event.model_dump(mode="python") for event in events]


@pytest.mark.parametrize("backend", [pytest.param("memory", id="memory"), *durable_params()])
async def test_every_field_reads_back_as_google_adk_keeps_it(backend: str, tmp_path: Path) -> None:
    written = [
        full_google_event("e-1"),
        full_google_event("e-2").model_copy(update={"custom_metadata": None}),
        GoogleEvent(id="e-3", author="user"),
    ]
    reference = GoogleInMemory()
    expected = await reference.create_session(app_name=APP, user_id="u", session_id="s")
    for event in written:
        await reference.append_event(expected, event.model_copy(deep=True))
    kept = await reference.get_session(app_name=APP, user_id="u", session_id="s")
    assert kept is not None

    async with store_uri(backend, tmp_path) if backend != "memory" else _memory() as uri:
        sessions = DurableSessionService(uri)
        try:
            session = await sessions.create_session(app_name=APP, user_id="u", session_id="s")
            for event in written:
                await sessions.append_event(session, event.model_copy(deep=True))
            stored = await sessions.get_session(app_name=APP, user_id="u", session_id="s")
        finally:
            await sessions.close()
    assert stored is not None
    assert _dumped(stored.events) == _dumped(kept.events)
    assert stored.events == kept.events
    assert _dumped(session.events) == _dumped(kept.events)  # the appending object too
    assert stored.state == session.state == kept.state


class _memory:
    async def __aenter__(self) -> str:
        return "adkrt+memory://"

    async def __aexit__(self, *exc: object) -> None:
        return None


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (MemoryEntry, GoogleMemoryEntry),
        (ArtifactVersion, GoogleArtifactVersion),
        (Session, GoogleSession),
    ],
    ids=["MemoryEntry", "ArtifactVersion", "Session"],
)
def test_the_other_bridged_models_have_the_same_fields(
    ours: type[BaseModel], theirs: type[BaseModel]
) -> None:
    """The memory and artifact bridges copy these field by field: a new field fails here."""
    assert set(theirs.model_fields) <= set(ours.model_fields)
    if theirs is GoogleSession:
        return  # its events are converted as above; its other fields are copied
    value = filled(theirs, DEEP, {})
    assert theirs.model_validate(ours.model_validate(value.model_dump()).model_dump()) == value
