"""InMemorySessionService: the whole contract, kept in this process.

For tests and prototypes. It keeps every guarantee of the durable backends (atomic append,
revisions, stale writers rejected, idempotent re-append, pagination, copies on every read),
and stores values through the same codec, so what reads back here reads back the same on
SQLite, PostgreSQL or Redis. One lock makes it safe across threads (``Runner.run`` runs the
loop in a worker thread).
"""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import Any

from adk_runtime import codec
from adk_runtime.errors import (
    AlreadyExistsError,
    InputValidationError,
    SessionNotFoundError,
    StaleSessionError,
)
from adk_runtime.events import event_from_json
from adk_runtime.sessions._validation import validate_session_key
from adk_runtime.sessions.base import (
    AppendResult,
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
    PreparedAppend,
    decode_page_token,
    encode_page_token,
    prepare_create,
    validate_list_args,
)
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import merge_state

__all__ = ["InMemorySessionService"]

_Key = tuple[str, str, str]


@dataclasses.dataclass
class _StoredEvent:
    json: str
    timestamp: float


@dataclasses.dataclass
class _StoredSession:
    state: dict[str, Any]
    create_time: float
    update_time: float
    revision: int = 0
    events: list[_StoredEvent] = dataclasses.field(default_factory=list)
    sequence_by_id: dict[str, int] = dataclasses.field(default_factory=dict)


class InMemorySessionService(BaseSessionService):
    """The session contract in process memory (nothing survives the process)."""

    def __init__(self) -> None:
        """Create an empty store."""
        self._lock = threading.Lock()
        self._sessions: dict[_Key, _StoredSession] = {}
        self._app_state: dict[str, dict[str, Any]] = {}
        self._user_state: dict[tuple[str, str], dict[str, Any]] = {}

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> InMemorySessionService:
        """Build the service for ``memory://`` (takes no options)."""
        return cls(**kwargs)

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Create a session; see :meth:`BaseSessionService.create_session`."""
        prepared = prepare_create(app_name, user_id, state, session_id)
        key = (app_name, user_id, prepared.session_id)
        now = time.time()
        with self._lock:
            if key in self._sessions:
                raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")
            self._app_state.setdefault(app_name, {}).update(prepared.app_state)
            self._user_state.setdefault((app_name, user_id), {}).update(prepared.user_state)
            stored = _StoredSession(state=prepared.session_state, create_time=now, update_time=now)
            self._sessions[key] = stored
            return self._snapshot(key, stored, [])

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        """Return the session or None; see :meth:`BaseSessionService.get_session`."""
        validate_session_key(app_name, user_id, session_id)
        key = (app_name, user_id, session_id)
        with self._lock:
            stored = self._sessions.get(key)
            if stored is None:
                return None
            events = _select_events(stored.events, config)
            return self._snapshot(key, stored, events)

    async def list_sessions(
        self,
        *,
        app_name: str,
        user_id: str | None = None,
        page_size: int | None = None,
        page_token: str | None = None,
    ) -> ListSessionsResponse:
        """List sessions; see :meth:`BaseSessionService.list_sessions`."""
        validate_list_args(app_name, user_id, page_size)
        after = _sort_key_from_token(page_token) if page_token else None
        with self._lock:
            rows = sorted(
                (_sort_key(key, stored), key, stored)
                for key, stored in self._sessions.items()
                if key[0] == app_name and (user_id is None or key[1] == user_id)
            )
            if after is not None:
                rows = [row for row in rows if row[0] > after]
            page = rows if page_size is None else rows[:page_size]
            sessions = [self._snapshot(key, stored, []) for _, key, stored in page]
        token = None
        if page_size is not None and len(rows) > page_size:
            token = encode_page_token(list(page[-1][0]))
        return ListSessionsResponse(sessions=sessions, next_page_token=token)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete the session and its events; see :meth:`BaseSessionService.delete_session`."""
        validate_session_key(app_name, user_id, session_id)
        with self._lock:
            self._sessions.pop((app_name, user_id, session_id), None)

    async def _append_event(self, session: Session, prepared: PreparedAppend) -> AppendResult:
        key = (session.app_name, session.user_id, session.id)
        with self._lock:
            stored = self._sessions.get(key)
            if stored is None:
                raise SessionNotFoundError(f"Session {session.id!r} does not exist.")
            sequence = stored.sequence_by_id.get(prepared.event.id)
            if sequence is not None:
                event = event_from_json(stored.events[sequence - 1].json)
                return AppendResult(event, sequence, stored.update_time, already_stored=True)
            if stored.revision != prepared.expected_revision:
                raise StaleSessionError()
            sequence = stored.revision + 1
            stored.events.append(_StoredEvent(prepared.event_json, prepared.event.timestamp))
            stored.sequence_by_id[prepared.event.id] = sequence
            stored.state.update(prepared.session_delta)
            if prepared.app_delta:
                self._app_state.setdefault(session.app_name, {}).update(prepared.app_delta)
            if prepared.user_delta:
                user_key = (session.app_name, session.user_id)
                self._user_state.setdefault(user_key, {}).update(prepared.user_delta)
            stored.revision = sequence
            stored.update_time = max(time.time(), stored.update_time)
            return AppendResult(prepared.event, sequence, stored.update_time)

    def _snapshot(self, key: _Key, stored: _StoredSession, events: list[_StoredEvent]) -> Session:
        app_name, user_id, session_id = key
        state = merge_state(
            codec.decode_state(stored.state),
            codec.decode_state(self._app_state.get(app_name, {})),
            codec.decode_state(self._user_state.get((app_name, user_id), {})),
        )
        return Session(
            id=session_id,
            app_name=app_name,
            user_id=user_id,
            state=state,
            events=[event_from_json(event.json) for event in events],
            last_update_time=stored.update_time,
            revision=stored.revision,
        )


def _select_events(
    events: list[_StoredEvent], config: GetSessionConfig | None
) -> list[_StoredEvent]:
    if config is None:
        return list(events)
    selected = events
    if config.after_timestamp is not None:
        threshold = config.after_timestamp
        selected = [event for event in selected if event.timestamp >= threshold]
    if config.num_recent_events is not None:
        count = config.num_recent_events
        selected = selected[-count:] if count else []
    return list(selected)


def _sort_key(key: _Key, stored: _StoredSession) -> tuple[float, str, str]:
    return (-stored.update_time, key[1], key[2])


def _sort_key_from_token(token: str) -> tuple[float, str, str]:
    position = decode_page_token(token)
    try:
        negated, user_id, session_id = position
        return (float(negated), str(user_id), str(session_id))
    except (TypeError, ValueError):
        raise InputValidationError("page_token is not a token this service issued.") from None
