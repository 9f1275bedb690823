"""Lossless conversion between google-adk's and adk_runtime's ``Event`` and ``Session``.

The fields both models have are carried over as they are (the same google-genai objects).
The fields only google-adk has (``output``, ``node_info``, ``actions.route``,
…) are kept, not dropped: they ride in the event's
``custom_metadata`` under :data:`STASH_KEY` as JSON (only the ones that differ from their
defaults) and are restored on the way back, so a google-adk event read back from any store
equals the one written.

A google-adk ``Session`` read through :class:`~.sessions.DurableSessionService` carries the
store's revision and incarnation in its ``_storage_update_marker`` (google-adk's own slot for
optimistic concurrency); an append from it is checked against them.
"""

from __future__ import annotations

import json
from typing import Any

from google.adk.events import Event as GoogleEvent
from google.adk.events import EventActions as GoogleEventActions
from google.adk.sessions import Session as GoogleSession
from pydantic import BaseModel

from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import Session

__all__ = [
    "STASH_KEY",
    "from_google_event",
    "from_google_session",
    "session_marker",
    "to_google_event",
    "to_google_session",
]

STASH_KEY = "adk_runtime.google_adk"
"""The ``custom_metadata`` key holding the google-adk fields adk_runtime does not model."""

_MARKER_PREFIX = "adkrt:"

_SHARED_EVENT_FIELDS = tuple(name for name in Event.model_fields if name != "actions")
_SHARED_ACTION_FIELDS = tuple(EventActions.model_fields)
_GOOGLE_ONLY_EVENT_FIELDS = tuple(
    name for name in GoogleEvent.model_fields if name not in Event.model_fields
)
_GOOGLE_ONLY_ACTION_FIELDS = tuple(
    name for name in GoogleEventActions.model_fields if name not in EventActions.model_fields
)


def from_google_event(event: GoogleEvent) -> Event:
    """An adk_runtime :class:`~adk_runtime.events.Event` holding everything ``event`` has."""
    data: dict[str, Any] = {}
    for name in _SHARED_EVENT_FIELDS:
        value = getattr(event, name)
        if value is not None:
            data[name] = _plain(value)
    data["actions"] = _from_google_actions(event.actions)
    stash = {
        "event": _non_default_json(event, _GOOGLE_ONLY_EVENT_FIELDS),
        "actions": _non_default_json(event.actions, _GOOGLE_ONLY_ACTION_FIELDS),
    }
    if stash["event"] or stash["actions"]:
        metadata = dict(event.custom_metadata or {})
        metadata[STASH_KEY] = {**stash, "bare": event.custom_metadata is None}
        data["custom_metadata"] = metadata
    elif event.custom_metadata is not None:
        data["custom_metadata"] = dict(event.custom_metadata)
    return Event.model_validate(data)


def _from_google_actions(actions: GoogleEventActions) -> EventActions:
    data: dict[str, Any] = {}
    for name in _SHARED_ACTION_FIELDS:
        value = getattr(actions, name)
        if value is not None:
            data[name] = _plain(value)
    return EventActions.model_validate(data)


def _plain(value: Any) -> Any:
    """``value`` with google-adk's or adk_runtime's own models as JSON data.

    Both sides have models of the same shape under the same field (e.g. ``ToolConfirmation``,
    ``CacheMetadata``); google-genai's types are shared and kept as they are.
    """
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    module = type(value).__module__
    if isinstance(value, BaseModel) and module.startswith(("google.adk", "adk_runtime")):
        return value.model_dump(mode="json", exclude_none=True)
    return value


def _non_default_json(model: BaseModel, names: tuple[str, ...]) -> dict[str, Any]:
    """The fields of ``model`` among ``names`` that differ from their defaults, as JSON."""
    fields = type(model).model_fields
    keep = set()
    for name in names:
        value = getattr(model, name)
        if value is not None and value != fields[name].get_default(call_default_factory=True):
            keep.add(name)
    if not keep:
        return {}
    dumped: dict[str, Any] = model.model_dump(mode="json", include=keep)
    return dumped


def to_google_event(event: Event) -> GoogleEvent:
    """The google-adk ``Event`` that :func:`from_google_event` made ``event`` from."""
    data: dict[str, Any] = {}
    for name in _SHARED_EVENT_FIELDS:
        value = getattr(event, name)
        if value is not None:
            data[name] = _plain(value)
    actions: dict[str, Any] = event.actions.model_dump(mode="python", exclude_none=True)
    metadata = dict(event.custom_metadata) if event.custom_metadata is not None else None
    stash = metadata.pop(STASH_KEY, None) if metadata is not None else None
    if isinstance(stash, dict):
        data.update(_restored(GoogleEvent, stash.get("event")))
        actions.update(_restored(GoogleEventActions, stash.get("actions")))
        bare = bool(stash.get("bare")) and not metadata
        data["custom_metadata"] = None if bare else metadata
    elif metadata is not None:
        data["custom_metadata"] = metadata
    data["actions"] = actions
    return GoogleEvent.model_validate(data)


def _restored(model: type[BaseModel], stashed: Any) -> dict[str, Any]:
    """The stashed JSON fields, parsed as google-adk parses its own stored JSON."""
    if not isinstance(stashed, dict) or not stashed:
        return {}
    parsed = model.model_validate_json(json.dumps(stashed))
    return {name: getattr(parsed, name) for name in stashed if name in model.model_fields}


def session_marker(revision: int, incarnation: str | None) -> str:
    """The ``_storage_update_marker`` of a google-adk session at this revision."""
    return f"{_MARKER_PREFIX}{revision}:{incarnation or ''}"


def parse_marker(marker: str | None) -> tuple[int, str | None] | None:
    """``(revision, incarnation)`` from :func:`session_marker`, or None if not ours."""
    if not marker or not marker.startswith(_MARKER_PREFIX):
        return None
    revision, _, incarnation = marker[len(_MARKER_PREFIX) :].partition(":")
    if not revision.isdigit():
        return None
    return int(revision), incarnation or None


def to_google_session(session: Session) -> GoogleSession:
    """A google-adk ``Session`` of ``session`` (events converted, revision in its marker)."""
    converted = GoogleSession(
        id=session.id,
        app_name=session.app_name,
        user_id=session.user_id,
        state=dict(session.state),
        events=[to_google_event(event) for event in session.events],
        last_update_time=session.last_update_time,
    )
    converted._storage_update_marker = session_marker(session.revision, session._incarnation)
    return converted


def from_google_session(session: GoogleSession) -> Session:
    """An adk_runtime ``Session`` of a google-adk one (its revision, if it was read from us)."""
    converted = Session(
        id=session.id,
        app_name=session.app_name,
        user_id=session.user_id,
        state=dict(session.state),
        events=[from_google_event(event) for event in session.events],
        last_update_time=session.last_update_time,
    )
    found = parse_marker(session._storage_update_marker)
    if found is not None:
        converted.revision, converted._incarnation = found
    return converted
