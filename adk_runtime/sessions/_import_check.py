"""Checking an export file before an import writes anything (see :mod:`.transfer`).

:func:`read_lines` reads the file (UTF-8, bounded lines); :class:`FileCheck` checks each line
(:meth:`FileCheck.record`) and then the whole file (:meth:`FileCheck.finish`): structure, JSON
types, declared apps, ids and event sizes against the limits ``append_event`` enforces,
duplicate event ids and sessions, revision == event count, storable state, the footer's
counts. Every refusal is one :class:`InputValidationError` naming the line and the field, and
never quoting the file's content.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from adk_runtime import codec
from adk_runtime.errors import InputValidationError, SerializationError
from adk_runtime.events import event_from_json
from adk_runtime.sessions._prepare import PreparedCreate, PreparedEvent, prepare_create
from adk_runtime.sessions._validation import validate_id
from adk_runtime.sessions.state import State

__all__ = ["MAX_LINE_BYTES", "FileCheck", "SessionRecord", "StateRecord", "read_lines"]

FORMAT = "adk-runtime-sessions"
VERSION = 1
MAX_LINE_BYTES = 1024 * 1024 * 1024
"""Longest line an import reads (a session line holds all of the session's events)."""

_SCOPED = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)
_FOOTER_COUNTS = ("sessions", "events", "app_states", "user_states")


@dataclasses.dataclass(frozen=True)
class SessionRecord:
    """A checked session line: the session as it will be created, events included."""

    number: int
    app_name: str
    user_id: str
    prepared: PreparedCreate

    @property
    def event_ids(self) -> list[str]:
        """The ids of its events, in order."""
        return [event.id for event in self.prepared.events]


@dataclasses.dataclass(frozen=True)
class StateRecord:
    """A checked ``app_state`` (``user_id`` None) or ``user_state`` line, keys prefixed."""

    number: int
    app_name: str
    user_id: str | None
    state: dict[str, Any]


def read_lines(path: Path, limit: int = MAX_LINE_BYTES) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, text)`` of the non-empty lines of ``path``.

    Raises:
        InputValidationError: A line is not UTF-8 or longer than ``limit`` bytes.
    """
    with path.open("rb") as handle:
        number = 0
        while raw := handle.readline(limit + 1):
            number += 1
            if len(raw) > limit:
                raise InputValidationError(
                    f"Line {number} is longer than {limit:,} bytes; this is not an export."
                )
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputValidationError(
                    f"Line {number} is not UTF-8 (byte {exc.start + 1}); this is not an export."
                ) from None
            if text.strip():
                yield number, text


def parse(line: str, number: int) -> dict[str, Any]:
    """The JSON object on line ``number``."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        raise InputValidationError(
            f"Line {number} is not JSON; the file is not an export or it is damaged."
        ) from None
    if not isinstance(obj, dict):
        raise InputValidationError(f"Line {number} is a JSON {_kind(obj)}, not an object.")
    return obj


def check_header(line: str) -> list[str]:
    """Check line 1; return the apps it declares."""
    header = parse(line, 1)
    if header.get("format") != FORMAT:
        raise InputValidationError(
            f"This is not an adk-runtime sessions export (expected format {FORMAT!r} on line 1)."
        )
    version = header.get("version")
    if version != VERSION or isinstance(version, bool):
        shown = version if isinstance(version, int) else _kind(version)
        raise InputValidationError(
            f"Export format version {shown!r} is not supported "
            f"(this adk-runtime reads version {VERSION})."
        )
    apps = _field(header, "apps", list, 1)
    for index, app in enumerate(apps):
        _id(app, f"apps[{index}]", 1)
    return list(apps)


class FileCheck:
    """Checks an export line by line, then as a whole; see the module docstring."""

    def __init__(self, header: str) -> None:
        self.apps = check_header(header)
        self.counts: dict[str, int] = dict.fromkeys(_FOOTER_COUNTS, 0)
        self.footer: dict[str, Any] | None = None
        self._seen: set[tuple[str, ...]] = set()

    def record(self, line: str, number: int) -> SessionRecord | StateRecord | None:
        """Check one line after the header; return what it will write (None: the footer)."""
        obj = parse(line, number)
        if self.footer is not None:
            raise InputValidationError(f"Line {number} comes after the 'end' line.")
        kind = obj.get("kind")
        if kind == "end":
            self.footer = obj
            return None
        if kind == "session":
            record: SessionRecord | StateRecord = self._session(obj, number)
        elif kind in ("app_state", "user_state"):
            record = self._state(obj, number, user=kind == "user_state")
        elif isinstance(kind, str) or kind is None:
            raise InputValidationError(
                f"Line {number}: field 'kind' is not one of session, app_state, user_state, end."
            )
        else:
            raise InputValidationError(f"Line {number}: field 'kind' is a {_kind(kind)}.")
        return record

    def finish(self) -> None:
        """Check the footer against what the lines held."""
        if self.footer is None:
            raise InputValidationError(
                "The export file is incomplete (its last line is not the 'end' line); export again."
            )
        for name in _FOOTER_COUNTS:
            announced = self.footer.get(name)
            if not isinstance(announced, int) or isinstance(announced, bool) or announced < 0:
                raise InputValidationError(
                    f"The 'end' line: field {name!r} must be a count (a whole number)."
                )
            if announced != self.counts[name]:
                raise InputValidationError(
                    f"The 'end' line announces {announced} {name} but the file holds "
                    f"{self.counts[name]}; the export is damaged."
                )

    def _once(self, key: tuple[str, ...], number: int, what: str) -> None:
        if key in self._seen:
            raise InputValidationError(f"Line {number}: this {what} appears twice in the file.")
        self._seen.add(key)

    def _app(self, obj: dict[str, Any], number: int) -> str:
        app_name = _id(obj.get("app_name"), "app_name", number)
        if app_name not in self.apps:
            raise InputValidationError(
                f"Line {number}: field 'app_name' names an app the header (line 1) does not "
                "declare."
            )
        return app_name

    def _session(self, obj: dict[str, Any], number: int) -> SessionRecord:
        app_name = self._app(obj, number)
        user_id = _id(obj.get("user_id"), "user_id", number)
        session_id = _id(obj.get("id"), "id", number)
        self._once(("session", app_name, user_id, session_id), number, "session")
        revision = obj.get("revision")
        if not isinstance(revision, int) or isinstance(revision, bool):
            raise InputValidationError(f"Line {number}: field 'revision' must be a whole number.")
        if "last_update_time" in obj:
            _field(obj, "last_update_time", (int, float), number)
        state = _session_state_of(obj, number, "state")
        creation = None
        if obj.get("creation_state") is not None:  # absent in older exports: unknown
            creation = _session_state_of(obj, number, "creation_state")
        events = _events(obj, number)
        if revision != len(events):
            raise InputValidationError(
                f"Line {number}: field 'revision' is {revision} but the session holds "
                f"{len(events)} events; the export is damaged."
            )
        prepared = _prepared(app_name, user_id, session_id, state, number, "state")
        if creation is not None:
            creation = _prepared(
                app_name, user_id, session_id, creation, number, "creation_state"
            ).session_state
        self.counts["sessions"] += 1
        self.counts["events"] += len(events)
        prepared = dataclasses.replace(prepared, events=tuple(events), creation_state=creation)
        return SessionRecord(number, app_name, user_id, prepared)

    def _state(self, obj: dict[str, Any], number: int, *, user: bool) -> StateRecord:
        app_name = self._app(obj, number)
        user_id = _id(obj.get("user_id"), "user_id", number) if user else None
        self._once(
            (str(user), app_name, user_id or ""), number, "user_state" if user else "app_state"
        )
        prefix = State.USER_PREFIX if user else State.APP_PREFIX
        state = {prefix + key: value for key, value in _state_of(obj, number).items()}
        try:
            codec.dumps(codec.encode_state(state))
        except SerializationError as exc:
            raise InputValidationError(
                f"Line {number}: field 'state' cannot be stored ({exc.reason})."
            ) from None
        self.counts["user_states" if user else "app_states"] += 1
        return StateRecord(number, app_name, user_id, state)


def _events(obj: dict[str, Any], number: int) -> list[PreparedEvent]:
    events: list[PreparedEvent] = []
    ids: set[str] = set()
    for index, payload in enumerate(_field(obj, "events", list, number)):
        where = f"Line {number}: field 'events[{index}]'"
        if not isinstance(payload, dict):
            raise InputValidationError(
                f"{where} is a JSON {_kind(payload)}, not an event object (an event that was "
                "unreadable in the source cannot be imported)."
            )
        try:
            event = PreparedEvent.of(event_from_json(payload))
        except ValidationError as exc:
            raise InputValidationError(f"{where} is not an event ({_first_error(exc)}).") from None
        except SerializationError as exc:
            raise InputValidationError(
                f"{where} cannot be stored ({exc.path}: {exc.reason})."
            ) from None
        except InputValidationError as exc:
            raise InputValidationError(f"{where}: {exc}") from None
        if event.id in ids:
            raise InputValidationError(f"{where} has the id of an earlier event of the session.")
        ids.add(event.id)
        events.append(event)
    return events


def _state_of(obj: dict[str, Any], number: int, name: str = "state") -> dict[str, Any]:
    state = _field(obj, name, dict, number)
    try:
        return codec.decode_state(state)
    except (ValueError, TypeError, RecursionError):
        raise InputValidationError(
            f"Line {number}: field {name!r} holds a value in no known encoding."
        ) from None


def _session_state_of(obj: dict[str, Any], number: int, name: str) -> dict[str, Any]:
    """Field ``name`` of a session line: a state of session-scoped keys only."""
    state = _state_of(obj, number, name)
    for key in state:
        if key.startswith(_SCOPED):
            raise InputValidationError(
                f"Line {number}: field {name!r} holds a key starting with "
                f"{key.split(':', 1)[0] + ':'!r}; a session line carries session-scoped state "
                "only (app and user state have their own lines)."
            )
    return state


def _prepared(
    app_name: str, user_id: str, session_id: str, state: dict[str, Any], number: int, name: str
) -> PreparedCreate:
    """The session as created with ``state`` (field ``name``), checked storable."""
    try:
        prepared = prepare_create(app_name, user_id, state, session_id)
        codec.dumps(prepared.session_state)
    except SerializationError as exc:
        raise InputValidationError(
            f"Line {number}: field {name!r} cannot be stored ({exc.reason})."
        ) from None
    return prepared


_EXPECTED = {dict: "an object", list: "an array", (int, float): "a number"}


def _field(obj: dict[str, Any], name: str, kind: type | tuple[type, ...], number: int) -> Any:
    if name not in obj:
        raise InputValidationError(f"Line {number}: field {name!r} is missing.")
    value = obj[name]
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputValidationError(
            f"Line {number}: field {name!r} must be {_EXPECTED[kind]}, not a {_kind(value)}."
        )
    return value


def _id(value: Any, name: str, number: int) -> str:
    if value is None:
        raise InputValidationError(f"Line {number}: field {name!r} is missing.")
    if not isinstance(value, str):
        raise InputValidationError(
            f"Line {number}: field {name!r} must be a string, not a {_kind(value)}."
        )
    try:
        return validate_id(value, name)
    except InputValidationError as exc:
        raise InputValidationError(f"Line {number}: field {exc}") from None


def _kind(value: Any) -> str:
    """The JSON name of a value's type."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _first_error(exc: ValidationError) -> str:
    first = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    return f"{where or 'the event'}: {first.get('msg', 'invalid')}"
