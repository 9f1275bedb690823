"""Export and import sessions in a portable JSONL format, to move them between backends.

One JSON object per line, in this order:

1. a header: ``{"format": "adk-runtime-sessions", "version": 1, "apps": [...]}``;
2. one line per session: ``{"kind": "session", "app_name", "user_id", "id", "revision",
   "last_update_time", "state", "creation_state", "events"}`` — ``state`` holds the
   session-scoped keys only, ``creation_state`` the session-scoped state it was created with
   (what its forks and rewinds start from, see :mod:`adk_runtime.sessions.fork`; left out
   when the source does not know it, and a file without it — an older export — imports the
   session with its creation state unknown), ``events`` the session's events in commit
   order, each in the stored form of :func:`adk_runtime.events.event_to_json`;
3. one line per app and per user that has state: ``{"kind": "app_state", "app_name",
   "state"}`` and ``{"kind": "user_state", "app_name", "user_id", "state"}`` (keys without
   their ``app:`` / ``user:`` prefix);
4. a footer: ``{"kind": "end", "sessions": n, "events": n, "app_states": n, "user_states": n}``
   (an import refuses a file without it: the file was cut short).

State values are encoded with :mod:`adk_runtime.codec` (bytes as ``{"$bytes": …}``, …).

**Import checks the whole file before it writes anything** (:mod:`._import_check`): every
line's structure and JSON types, apps the header declares, ids and events against the limits
``append_event`` enforces, no event id twice in a session, revision == number of events, no
``app:``/``user:``/``temp:`` key in a session line's state or creation state, storable
state, the footer's
counts. Then it reads the target: a session it already holds with the same events (and maybe
later ones) is skipped; one holding other events refuses the file. Only then does it write,
line by line: **each session is one atomic create carrying its state and its events** (same
ids, order and timestamps; revision = their count; their deltas are not replayed, so a
session line never touches app or user state), and each state line one atomic merge. A
refused file writes nothing and is refused again the same way; importing a file twice
changes nothing. If the store fails midway, the sessions before the failing line were written
whole and the rest not at all (``ImportCounts.line`` is the line that failed): running the
same import again completes it. The target's ``last_update_time`` is the time of the import.

App and user state are read through the sessions that see them, so the state of an app or a
user without any session is not exported.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from adk_runtime import codec
from adk_runtime.errors import AlreadyExistsError, InputValidationError, UnreadableDataError
from adk_runtime.events import event_to_json
from adk_runtime.sessions._import_check import (
    FORMAT,
    VERSION,
    FileCheck,
    SessionRecord,
    StateRecord,
    read_lines,
)
from adk_runtime.sessions._prepare import encode_scope
from adk_runtime.sessions.base import BaseSessionService, GetSessionConfig
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import State
from adk_runtime.telemetry import store_span

__all__ = [
    "FORMAT",
    "VERSION",
    "ImportCounts",
    "check_file",
    "export_lines",
    "import_file",
    "import_lines",
    "list_session_keys",
    "read_lines",
]

_PAGE = 200
_T = TypeVar("_T")


@dataclasses.dataclass
class ImportCounts:
    """What an import did (or an export wrote)."""

    sessions_created: int = 0
    sessions_skipped: int = 0
    events: int = 0
    app_states: int = 0
    user_states: int = 0
    expected: int = 0
    """Lines (sessions and states) the file holds, once it is checked."""
    line: int | None = None
    """The line being written; still set when the import stopped there."""

    @property
    def sessions(self) -> int:
        """Sessions seen, whatever happened to them."""
        return self.sessions_created + self.sessions_skipped


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
        key = (app_name, user_id, session_id)
        creation = await service._creation_state(key, session._incarnation)
        counts.sessions_created += 1
        counts.events += len(events)
        yield _session_line(session, scoped["session"], creation, events)
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


def _session_line(
    session: Session, state: dict[str, Any], creation: dict[str, Any] | None, events: list[Any]
) -> str:
    line: dict[str, Any] = {
        "kind": "session",
        "app_name": session.app_name,
        "user_id": session.user_id,
        "id": session.id,
        "revision": session.revision,
        "last_update_time": session.last_update_time,
        "state": state,
    }
    if creation is not None:
        line["creation_state"] = creation  # encoded as stored
    line["events"] = events
    return _dump(line)


def _dump(obj: dict[str, Any]) -> str:
    if "state" in obj:
        obj = {**obj, "state": codec.encode_state(obj["state"])}
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


async def import_file(
    service: BaseSessionService,
    path: Path,
    counts: ImportCounts,
    on_record: Callable[[ImportCounts], None] | None = None,
) -> None:
    """Import the export file at ``path`` into ``service``; see the module docstring.

    Args:
        service: The target store.
        path: The export (read twice: checked whole, then written).
        counts: Filled in as the import goes (it tells what was written if it stops).
        on_record: Called after each line is written (progress).

    Raises:
        InputValidationError: The file is malformed or damaged; nothing was written.
        AlreadyExistsError: The target holds one of its sessions with other events; nothing
            was written.
    """
    await import_lines(service, lambda: read_lines(path), counts, on_record)


async def import_lines(
    service: BaseSessionService,
    lines: Callable[[], Iterable[tuple[int, str]]],
    counts: ImportCounts,
    on_record: Callable[[ImportCounts], None] | None = None,
) -> None:
    """Import the numbered lines ``lines()`` yields (called twice); see :func:`import_file`."""
    # The file is read and decoded off the event loop (a thread), line by line.
    check = await asyncio.to_thread(_check_file, lines())
    counts.expected = sum(check.counts[k] for k in ("sessions", "app_states", "user_states"))
    present = await _present(service, _records(lines(), check.apps))
    async for record in _each(_records(lines(), check.apps)):
        counts.line = record.number
        if isinstance(record, SessionRecord):
            await _write_session(service, record, present, counts)
        else:
            await _write_state(service, record, counts)
        if on_record is not None:
            on_record(counts)
    counts.line = None


def check_file(lines: Iterable[tuple[int, str]]) -> dict[str, int]:
    """Check a whole export (numbered lines) without writing; return the footer's counts.

    Raises:
        InputValidationError: The file is malformed or damaged.
    """
    return dict(_check_file(lines).counts)


def _check_file(lines: Iterable[tuple[int, str]]) -> FileCheck:
    numbered = iter(lines)
    first = next(numbered, None)
    if first is None:
        raise InputValidationError("The file is empty; it is not an adk-runtime sessions export.")
    check = FileCheck(first[1])
    for number, line in numbered:
        check.record(line, number)
    check.finish()
    return check


def _records(
    lines: Iterable[tuple[int, str]], apps: list[str]
) -> Iterator[SessionRecord | StateRecord]:
    numbered = iter(lines)
    next(numbered)
    check = FileCheck(_dump({"format": FORMAT, "version": VERSION, "apps": apps}))
    for number, line in numbered:
        record = check.record(line, number)
        if record is not None:
            yield record


async def _each(items: Iterable[_T]) -> AsyncIterator[_T]:
    """Iterate ``items`` (a generator that reads a file) in a worker thread, item by item."""
    iterator = iter(items)
    while (item := await asyncio.to_thread(next, iterator, None)) is not None:
        yield item


async def _present(
    service: BaseSessionService, records: Iterable[SessionRecord | StateRecord]
) -> set[tuple[str, str, str]]:
    """The sessions of the file the target already holds; refuse one it holds differently."""
    present: set[tuple[str, str, str]] = set()
    async for record in _each(records):
        if isinstance(record, SessionRecord) and await _holds(service, record):
            present.add(_key(record))
    return present


async def _holds(service: BaseSessionService, record: SessionRecord) -> bool:
    """Whether the target holds the session with these events (and maybe later ones)."""
    app_name, user_id, session_id = _key(record)
    stored = await service.get_session(app_name=app_name, user_id=user_id, session_id=session_id)
    if stored is None:
        return False
    ids = record.event_ids
    if [event.id for event in stored.events[: len(ids)]] != ids:
        raise AlreadyExistsError(
            f"Line {record.number}: session {session_id!r} of user {user_id!r} in app "
            f"{app_name!r} already exists in the target with other events; nothing was "
            "imported. Delete it there (adk-runtime sessions delete) and import again."
        )
    return True


def _key(record: SessionRecord) -> tuple[str, str, str]:
    return record.app_name, record.user_id, record.prepared.session_id


async def _write_session(
    service: BaseSessionService,
    record: SessionRecord,
    present: set[tuple[str, str, str]],
    counts: ImportCounts,
) -> None:
    """Create the session with its events in one atomic step (skipped when already there)."""
    if _key(record) not in present:
        try:
            with store_span("create", type(service).__name__):
                await service._create_session(record.app_name, record.user_id, record.prepared)
        except AlreadyExistsError:  # created meanwhile by another writer: the same session?
            if not await _holds(service, record):
                raise
        else:
            counts.sessions_created += 1
            counts.events += len(record.prepared.events)
            return
    counts.sessions_skipped += 1


async def _write_state(
    service: BaseSessionService, record: StateRecord, counts: ImportCounts
) -> None:
    """Merge an app or user state line into its row, hash or map: one atomic backend step."""
    user = record.user_id is not None
    prefix = State.USER_PREFIX if user else State.APP_PREFIX
    unprefixed = {key[len(prefix) :]: value for key, value in record.state.items()}
    encoded = encode_scope(unprefixed, prefix, "state")
    await service._merge_scope_state(record.app_name, record.user_id, encoded)
    if user:
        counts.user_states += 1
    else:
        counts.app_states += 1
