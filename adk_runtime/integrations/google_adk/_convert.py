"""Lossless conversion between google-adk's and adk_runtime's ``Event`` and ``Session``.

The conversion is generic, driven by the two models, not by a list of fields: the google-adk
event is dumped (``model_dump(mode="python")``, so bytes, datetimes and google-genai values
stay as they are) and validated as an adk_runtime :class:`~adk_runtime.events.Event`.
Whatever that validation refuses — a field adk_runtime does not model (``output``'s
siblings ``go_away``, ``actions.set_model_response``, a field a later google-adk adds at any
depth) or a value adk_runtime's type does not take — is taken out at its path and kept, not
dropped: it rides in the event's ``custom_metadata`` under :data:`STASH_KEY` (only values
that differ from google-adk's defaults; through the store's codec, so bytes and datetimes
survive) and is put back at the same path on the way back. A google-adk event read back from
any store equals the one written, as google-adk's own in-memory service keeps it; pydantic
models held in free-form values (state, ``output``) come back as their dumps, as from
google-adk's database service.

A google-adk ``Session`` read through :class:`~.sessions.DurableSessionService` carries the
store's revision and incarnation in its ``_storage_update_marker`` (google-adk's own slot for
optimistic concurrency); an append from it is checked against them.
"""

from __future__ import annotations

import enum
import json
import types as pytypes
import typing
from typing import Any, TypeVar

from google.adk.events import Event as GoogleEvent
from google.adk.events import EventActions as GoogleEventActions
from google.adk.sessions import Session as GoogleSession
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from pydantic_core import ErrorDetails

from adk_runtime.errors import SerializationError
from adk_runtime.events import Event
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
"""The ``custom_metadata`` key holding the google-adk values adk_runtime does not model."""

_MARKER_PREFIX = "adkrt:"
_Model = TypeVar("_Model", bound=BaseModel)
Path = list[str | int]


def from_google_event(event: GoogleEvent) -> Event:
    """An adk_runtime :class:`~adk_runtime.events.Event` holding everything ``event`` has.

    Raises:
        SerializationError: A value cannot be converted (it names the field).
    """
    # By alias: google-adk's free-form values (an AuthConfig's scheme) read back only so.
    data: dict[str, Any] = _enum_values(event.model_dump(mode="python", by_alias=True))
    metadata = data.pop("customMetadata", None)
    converted, taken = _validated(Event, data, source=event)
    if taken:
        stash = {"paths": [[path, value] for path, value in taken], "bare": metadata is None}
        converted.custom_metadata = {**(metadata or {}), STASH_KEY: stash}
    elif metadata is not None:
        converted.custom_metadata = metadata
    return converted


def to_google_event(event: Event) -> GoogleEvent:
    """The google-adk ``Event`` that :func:`from_google_event` made ``event`` from.

    An event adk_runtime wrote itself converts too (google-adk has every field it has).
    """
    # By name: some google-adk models (CacheMetadata) take no aliases; all take names.
    data: dict[str, Any] = event.model_dump(mode="python")
    metadata = data.pop("custom_metadata", None)
    stash = metadata.pop(STASH_KEY, None) if isinstance(metadata, dict) else None
    if isinstance(stash, dict):
        for path, value in _stashed_paths(stash):
            _put(data, path, value)
        if stash.get("bare") and not metadata:
            metadata = None
    data["custom_metadata"] = metadata
    converted, _ = _validated(GoogleEvent, data, source=None)
    return converted


def _enum_values(value: Any) -> Any:
    """``value`` with each enum member as its value, as in JSON.

    The store's codec takes no enums, and an enum-typed field takes its members' values.
    """
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, dict):
        return {key: _enum_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_enum_values(item) for item in value]
    return value


def _validated(
    model: type[_Model], data: dict[str, Any], source: BaseModel | None
) -> tuple[_Model, list[tuple[Path, Any]]]:
    """``model`` from ``data``, with what it refuses taken out: ``(instance, [(path, value)])``.

    Each path names the fields of ``source`` (the model ``data`` was dumped from) by name. A
    value equal to its field's default on ``source`` is dropped rather than taken: the other
    side rebuilds it.
    """
    taken: list[tuple[Path, Any]] = []
    while True:
        try:
            return model.model_validate(data), taken
        except ValidationError as exc:
            errors = exc.errors()
        paths = {tuple(_refused_path(model, data, error)): error for error in errors}
        for path, error in paths.items():
            if not path or not _exists(data, list(path)):
                raise SerializationError(_where(error), f"{model.__name__} cannot hold it")
        for path in sorted(paths, key=len, reverse=True):  # inner first
            value = _get(data, list(path)[:-1]).pop(path[-1])
            names, default = _in_source(source, list(path))
            if value != _dumped(default):
                taken.append((names, value))


def _refused_path(model: type[BaseModel], data: Any, error: ErrorDetails) -> Path:
    """Where to take out what ``error`` refuses.

    That is the unknown key itself, or the whole field of the innermost model the error is in
    (a value of a type ``model`` does not take).
    """
    loc = list(error["loc"])
    if error["type"] == "extra_forbidden" and _exists(data, loc):
        return loc
    path: Path = []
    current: type[BaseModel] | None = model
    for key in loc:
        field = None if current is None else _field(current, key)
        if field is None:
            break
        path.append(key)
        current = _model_of(field.annotation)
        if current is not None and not isinstance(_get(data, path), dict):
            break
    return path


def _field(model: type[BaseModel], key: str | int) -> FieldInfo | None:
    """The field of ``model`` that ``key`` (its alias or its name) stands for, if any."""
    return _named(model, key)[1]


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model a field holds directly (``Model`` or ``Model | None``), if any."""
    if typing.get_origin(annotation) in (typing.Union, pytypes.UnionType):
        models = [_model_of(arg) for arg in typing.get_args(annotation) if arg is not type(None)]
        return models[0] if len(models) == 1 else None
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


_NO_DEFAULT = object()


def _in_source(source: BaseModel | None, path: Path) -> tuple[Path, Any]:
    """``path`` (keys of a dump) with ``source``'s field names, and its field's default.

    The default is ``_NO_DEFAULT`` when the path does not end at a field that has one.
    """
    names: Path = []
    owner: Any = source
    default: Any = _NO_DEFAULT
    for key in path:
        default = _NO_DEFAULT
        if isinstance(owner, BaseModel):
            name, field = _named(type(owner), key)
            names.append(name)
            if field is not None and not field.is_required():
                default = field.get_default(call_default_factory=True)
            owner = getattr(owner, str(name), None)
        else:
            names.append(key)
            owner = _at(owner, key)
    return names, default


def _named(model: type[BaseModel], key: str | int) -> tuple[str | int, FieldInfo | None]:
    for name, field in model.model_fields.items():
        if key in (name, field.alias):
            return name, field
    return key, None


def _dumped(value: Any) -> Any:
    return value.model_dump(mode="python", by_alias=True) if isinstance(value, BaseModel) else value


def _has(container: Any, key: str | int) -> bool:
    if isinstance(container, dict):
        return key in container
    return isinstance(container, list) and isinstance(key, int) and 0 <= key < len(container)


def _at(container: Any, key: str | int) -> Any:
    return container[key] if _has(container, key) else None


def _exists(data: Any, path: Path) -> bool:
    for key in path:
        if not _has(data, key):
            return False
        data = data[key]
    return True


def _get(data: Any, path: Path) -> Any:
    for key in path:
        data = _at(data, key)
    return data


def _put(data: dict[str, Any], path: Path, value: Any) -> None:
    """Put ``value`` back at ``path`` (always a key: a model field or an unknown key)."""
    parent: Any = data
    for key in path[:-1]:
        child = _at(parent, key)
        if child is None:
            child = {}
            parent[key] = child
        parent = child
    parent[path[-1]] = value


def _where(error: ErrorDetails) -> str:
    return "event" + "".join(f"[{key!r}]" for key in error["loc"])


def _stashed_paths(stash: dict[str, Any]) -> list[tuple[Path, Any]]:
    """The stashed ``(path, value)`` pairs, outer ones first.

    That is the reverse of how they were taken out. Stashes of earlier releases (the JSON of
    google-adk's fields, under ``event`` and ``actions``) are read too.
    """
    pairs = [
        (list(item[0]), item[1])
        for item in stash.get("paths") or ()
        if isinstance(item, list) and len(item) == 2 and isinstance(item[0], list)
    ]
    pairs.reverse()
    for key, model in (("event", GoogleEvent), ("actions", GoogleEventActions)):
        earlier = stash.get(key)  # the format before this one: JSON of google-only fields
        if isinstance(earlier, dict) and earlier:
            parsed = model.model_validate_json(json.dumps(earlier))
            prefix: Path = [] if key == "event" else ["actions"]
            pairs.extend(
                ([*prefix, name], _dumped(getattr(parsed, name)))
                for name in model.model_fields
                if name in earlier
            )
    return pairs


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
