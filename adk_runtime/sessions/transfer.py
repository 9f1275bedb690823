"""Export and import sessions in a portable JSONL format, to move them between backends.

One JSON object per line, in this order:

1. a header: ``{"format": "adk-runtime-sessions", "version": 1, "apps": [...]}``;
2. one line per session: ``{"kind": "session", "app_name", "user_id", "id", "revision",
   "last_update_time", "state", "events"}`` — ``state`` holds the session-scoped keys only,
   ``events`` the session's events in commit order, each in the stored form of
   :func:`adk_runtime.events.event_to_json`;
3. one line per app and per user that has state: ``{"kind": "app_state", "app_name",
   "state"}`` and ``{"kind": "user_state", "app_name", "user_id", "state"}`` (keys without
   their ``app:`` / ``user:`` prefix);
4. a footer: ``{"kind": "end", "sessions": n, "events": n, "app_states": n, "user_states": n}``
   (an import refuses a file without it: the file was cut short).

State values are encoded with :mod:`adk_runtime.codec` (bytes as ``{"$bytes": …}``, …).

Import keeps event ids, their order and so the session revision (one append per event, so
revision == number of events). It is idempotent: a session already in the target with the
same events is skipped; one holding a prefix of them gets the rest (an interrupted import
resumes); one holding different events stops the import with :class:`AlreadyExistsError`
(delete it in the target first). App and user state lines come after the sessions because
replaying events re-applies their old ``app:``/``user:`` deltas; the state lines then set the
final values. The target's ``last_update_time`` is the time of the import.

App and user state are read through the sessions that see them, so the state of an app or a
user without any session is not exported.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import AsyncIterator, Iterable
from typing import Any

from pydantic import ValidationError

from adk_runtime import codec
from adk_runtime.errors import (
    AlreadyExistsError,
    InputValidationError,
    SerializationError,
    UnreadableDataError,
)
from adk_runtime.events import Event, event_from_json, event_to_json
from adk_runtime.events._limits import check_storable
from adk_runtime.sessions.base import BaseSessionService, GetSessionConfig
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import State

__all__ = [
    "FORMAT",
    "VERSION",
    "ImportCounts",
    "export_lines",
    "import_line",
    "list_session_keys",
    "read_header_and_footer",
]

FORMAT = "adk-runtime-sessions"
VERSION = 1
_PAGE = 200


@dataclasses.dataclass
class ImportCounts:
    """What an import did (or an export wrote)."""

    sessions_created: int = 0
    sessions_resumed: int = 0
    sessions_skipped: int = 0
    events: int = 0
    app_states: int = 0
    user_states: int = 0

    @property
    def sessions(self) -> int:
        """Sessions seen, whatever happened to them."""
        return self.sessions_created + self.sessions_resumed + self.sessions_skipped


async def list_session_keys(
    service: BaseSessionService, app_name: str, user_id: str | None = None
) -> list[tuple[str, str]]:
    """Return ``(user_id, session_id)`` of every session of the app (page by page)."""
    keys: list[tuple[str, str]] = []
    token: str | None = None
    while True:
        page = await service.list_sessions(
            app_name=app_name, user_id=user_id, page_size=_PAGE, page_token=token
        )
        keys.extend((s.user_id, s.id) for s in page.sessions)
        token = page.next_page_token
        if not token:
            return keys


def header_line(app_names: Iterable[str]) -> str:
    """The first line of an export."""
    return _dump({"format": FORMAT, "version": VERSION, "apps": list(app_names)})


async def export_lines(
    service: BaseSessionService,
    app_name: str,
    keys: list[tuple[str, str]],
    counts: ImportCounts,
) -> AsyncIterator[str]:
    """Yield the session lines and then the state lines of one app, adding to ``counts``.

    The caller writes the header before and the footer after (see the module docstring).
    """
    app_state: dict[str, Any] = {}
    user_states: dict[str, dict[str, Any]] = {}
    for user_id, session_id in keys:
        session, events = await _exported(service, app_name, user_id, session_id)
        if session is None:  # deleted while exporting
            continue
        scoped = _split_scopes(session.state)
        app_state.update(scoped["app"])
        user_states.setdefault(user_id, {}).update(scoped["user"])
        counts.sessions_created += 1
        counts.events += len(events)
        yield _session_line(session, scoped["session"], events)
    if app_state:
        counts.app_states += 1
        yield _dump({"kind": "app_state", "app_name": app_name, "state": app_state})
    for user_id, state in user_states.items():
        if state:
            counts.user_states += 1
            line = {"kind": "user_state", "app_name": app_name, "user_id": user_id, "state": state}
            yield _dump(line)


def footer_line(counts: ImportCounts) -> str:
    """The last line of an export."""
    return _dump(
        {
            "kind": "end",
            "sessions": counts.sessions,
            "events": counts.events,
            "app_states": counts.app_states,
            "user_states": counts.user_states,
        }
    )


def _split_scopes(state: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {"app": {}, "user": {}, "session": {}}
    for key, value in state.items():
        if key.startswith(State.APP_PREFIX):
            out["app"][key[len(State.APP_PREFIX) :]] = value
        elif key.startswith(State.USER_PREFIX):
            out["user"][key[len(State.USER_PREFIX) :]] = value
        elif not key.startswith(State.TEMP_PREFIX):
            out["session"][key] = value
    return out


async def _exported(
    service: BaseSessionService, app_name: str, user_id: str, session_id: str
) -> tuple[Session | None, list[Any]]:
    """The session and its events as export objects; unreadable events are copied as stored."""
    try:
        session = await service.get_session(
            app_name=app_name, user_id=user_id, session_id=session_id
        )
    except UnreadableDataError:
        session = await service.get_session(
            app_name=app_name,
            user_id=user_id,
            session_id=session_id,
            config=GetSessionConfig(num_recent_events=0),
        )
        payloads = await service._stored_payloads(app_name, user_id, session_id)
        return session, [_as_exported(payload) for payload in payloads]
    if session is None:
        return None, []
    return session, [json.loads(event_to_json(event)) for event in session.events]


def _as_exported(payload: str) -> Any:
    try:
        return json.loads(payload)
    except (ValueError, RecursionError):
        return payload  # kept as text: nothing is lost; importing it says what is wrong


def _session_line(session: Session, state: dict[str, Any], events: list[Any]) -> str:
    return _dump(
        {
            "kind": "session",
            "app_name": session.app_name,
            "user_id": session.user_id,
            "id": session.id,
            "revision": session.revision,
            "last_update_time": session.last_update_time,
            "state": state,
            "events": events,
        }
    )


def _dump(obj: dict[str, Any]) -> str:
    if "state" in obj:
        obj = {**obj, "state": codec.encode_state(obj["state"])}
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def read_header_and_footer(first: str, last: str) -> dict[str, Any]:
    """Check an export's first and last lines; return the footer's counts.

    Raises:
        InputValidationError: Not an export of this format, or cut short.
    """
    header = _parse(first, 1)
    if header.get("format") != FORMAT:
        raise InputValidationError(
            f"This is not an adk-runtime sessions export (expected format {FORMAT!r} on line 1)."
        )
    if header.get("version") != VERSION:
        raise InputValidationError(
            f"Export format version {header.get('version')!r} is not supported "
            f"(this adk-runtime reads version {VERSION})."
        )
    footer = _parse(last, 0)
    if footer.get("kind") != "end":
        raise InputValidationError(
            "The export file is incomplete (its last line is not the 'end' line); export again."
        )
    return footer


def _parse(line: str, number: int) -> dict[str, Any]:
    try:
        obj = json.loads(line)
    except ValueError:
        where = f"line {number}" if number else "the last line"
        raise InputValidationError(f"The export file is not JSONL: {where} is not JSON.") from None
    if not isinstance(obj, dict):
        raise InputValidationError("The export file is not JSONL of objects.")
    return obj


async def import_line(
    service: BaseSessionService, line: str, number: int, counts: ImportCounts
) -> None:
    """Apply one line of an export (session or state) to ``service``, updating ``counts``.

    Raises:
        InputValidationError: The line is malformed.
        AlreadyExistsError: The target holds this session with different events.
    """
    obj = _parse(line, number)
    kind = obj.get("kind")
    try:
        if kind == "session":
            await _import_session(service, obj, counts, number)
        elif kind == "app_state":
            state = {State.APP_PREFIX + k: v for k, v in codec.decode_state(obj["state"]).items()}
            await _set_shared_state(service, obj["app_name"], "__adk_runtime_import__", state)
            counts.app_states += 1
        elif kind == "user_state":
            state = {State.USER_PREFIX + k: v for k, v in codec.decode_state(obj["state"]).items()}
            await _set_shared_state(service, obj["app_name"], obj["user_id"], state)
            counts.user_states += 1
        elif kind != "end":
            raise InputValidationError(f"Line {number} has an unknown kind {kind!r}.")
    except (KeyError, TypeError) as exc:
        raise InputValidationError(f"Line {number} is malformed (missing {exc}).") from None


def _events_of(obj: dict[str, Any], number: int) -> list[Event]:
    """Decode and check every event of a session line before anything is written."""
    events = []
    for index, payload in enumerate(obj["events"]):
        try:
            event = event_from_json(payload)
            check_storable(event, event_to_json(event))
        except (ValidationError, SerializationError) as exc:
            reason = exc.reason if isinstance(exc, SerializationError) else _first_error(exc)
            raise InputValidationError(
                f"Line {number}: event {index} of session {obj.get('id')!r} cannot be imported "
                f"({reason}). Nothing of this session was written."
            ) from None
        events.append(event)
    return events


def _first_error(exc: ValidationError) -> str:
    first = exc.errors(include_url=False, include_input=False)[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    return f"{where or 'the event'}: {first.get('msg', 'invalid')}"


async def _import_session(
    service: BaseSessionService, obj: dict[str, Any], counts: ImportCounts, number: int
) -> None:
    app_name, user_id, session_id = obj["app_name"], obj["user_id"], obj["id"]
    events = _events_of(obj, number)
    session = await service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
    if session is None:
        session = await service.create_session(
            app_name=app_name,
            user_id=user_id,
            session_id=session_id,
            state=codec.decode_state(obj["state"]),
        )
        counts.sessions_created += 1
    else:
        stored = [event.id for event in session.events]
        if stored != [event.id for event in events[: len(stored)]]:
            raise AlreadyExistsError(
                f"Session {session_id!r} of user {user_id!r} in app {app_name!r} already exists "
                "in the target with different events; delete it there first "
                "(adk-runtime sessions delete) and import again."
            )
        if len(stored) == len(events):
            counts.sessions_skipped += 1
            return
        counts.sessions_resumed += 1
        events = events[len(stored) :]
    for event in events:
        await service.append_event(session, event)
        counts.events += 1
    if session.revision != obj["revision"]:
        raise InputValidationError(
            f"Session {session_id!r}: the file says revision {obj['revision']} but it holds "
            f"{session.revision} events; the export is damaged."
        )


async def _set_shared_state(
    service: BaseSessionService, app_name: str, user_id: str, state: dict[str, Any]
) -> None:
    """Write app/user state through a short-lived helper session (the portable way)."""
    helper = f"__adk_runtime_import_{uuid.uuid4().hex}"
    await service.create_session(app_name=app_name, user_id=user_id, session_id=helper, state=state)
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=helper)
