"""InMemorySessionService: the whole contract, kept in this process.

For tests and prototypes. It keeps every guarantee of the durable backends (atomic append,
revisions, stale writers rejected, idempotent re-append, pagination, a fresh events list and
state on every read), and stores values through the same codec, so what reads back here reads
back the same on SQLite, PostgreSQL or Redis. Like the durable backends' session cache, it
decodes a stored event once and shares the Event object between reads: treat committed events
as read-only. One lock makes it safe across threads (``Runner.run`` runs the
loop in a worker thread).
"""

from __future__ import annotations

import dataclasses
import threading
import time
import uuid
from typing import Any

from adk_runtime import codec
from adk_runtime._url_registry import check_query_options
from adk_runtime.errors import (
    RECREATED_SESSION_MESSAGE,
    AlreadyExistsError,
    ClaimLostError,
    SessionBusyError,
    SessionNotFoundError,
    StaleSessionError,
)
from adk_runtime.events import Event, event_from_stored
from adk_runtime.sessions._prepare import ReadPlan, SessionTail
from adk_runtime.sessions._sync import run_to_end
from adk_runtime.sessions.base import (
    AppendResult,
    BaseSessionService,
    ClaimAttempt,
    GetSessionConfig,
    ListCursor,
    ListQuery,
    ListSessionsResponse,
    PreparedAppend,
    PreparedCreate,
)
from adk_runtime.sessions.claims import ClaimedStart, new_claim_token
from adk_runtime.sessions.fork import PreparedFork
from adk_runtime.sessions.invocations import OpenInvocation, status_of
from adk_runtime.sessions.retention import IdleQuery, IdleSession
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import merge_state

__all__ = ["InMemorySessionService"]

_Key = tuple[str, str, str]


@dataclasses.dataclass
class _StoredEvent:
    json: str
    timestamp: float
    decoded: Event | None = None  # decoded on first read, then shared by later reads

    def read(self, session_id: str, position: int) -> Event:
        if self.decoded is None:
            self.decoded = event_from_stored(self.json, session_id, position)
        return self.decoded


@dataclasses.dataclass
class _StoredSession:
    state: dict[str, Any]
    create_time: float
    update_time: float
    revision: int = 0
    events: list[_StoredEvent] = dataclasses.field(default_factory=list)
    sequence_by_id: dict[str, int] = dataclasses.field(default_factory=dict)
    incarnation: str = dataclasses.field(default_factory=lambda: uuid.uuid4().hex)
    claim_token: int = 0
    claim_until: float | None = None  # time.monotonic() when the lease runs out
    claim_took_over: bool = False  # what the latest acquisition answered (for its retry)
    open_invocation: str | None = None
    open_since: float = 0.0
    creation_state: dict[str, Any] | None = None  # encoded; None: unknown (an old import)

    def claim_held_for(self, now: float) -> float:
        """Seconds the current claim's lease still runs (0.0 when nobody holds it)."""
        return 0.0 if self.claim_until is None else max(self.claim_until - now, 0.0)


class InMemorySessionService(BaseSessionService):
    """The session contract in process memory (nothing survives the process)."""

    def __init__(self) -> None:
        """Create an empty store."""
        self._lock = threading.Lock()
        self._sessions: dict[_Key, _StoredSession] = {}
        self._app_state: dict[str, dict[str, Any]] = {}
        self._user_state: dict[tuple[str, str], dict[str, Any]] = {}
        self._open: dict[str, set[_Key]] = {}  # app → sessions with an open invocation

    @property
    def sessions(self) -> dict[str, dict[str, dict[str, Session]]]:
        """Every stored session, read whole, keyed by app name, then user id, then session id.

        google-adk's attribute, for inspection in tests: each access reads a new snapshot
        (as ``get_session`` does), so changing it changes nothing stored; a session taken
        from it can be appended to like any loaded session.
        """
        found: dict[str, dict[str, dict[str, Session]]] = {}
        with self._lock:
            for key, stored in self._sessions.items():
                users = found.setdefault(key[0], {})
                users.setdefault(key[1], {})[key[2]] = self._snapshot(key, stored, stored.events)
        return found

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> InMemorySessionService:
        """Build the service for ``memory://`` (takes no options: a query is refused)."""
        check_query_options(url, (), what="memory://")
        return cls(**kwargs)

    def create_session_sync(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Deprecated synchronous :meth:`create_session` (see :mod:`._sync`)."""
        call = self.create_session(
            app_name=app_name, user_id=user_id, state=state, session_id=session_id
        )
        return run_to_end("create_session_sync", call)

    def get_session_sync(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        """Deprecated synchronous :meth:`get_session` (see :mod:`._sync`)."""
        call = self.get_session(
            app_name=app_name, user_id=user_id, session_id=session_id, config=config
        )
        return run_to_end("get_session_sync", call)

    def list_sessions_sync(
        self, *, app_name: str, user_id: str | None = None
    ) -> ListSessionsResponse:
        """Deprecated synchronous :meth:`list_sessions` (see :mod:`._sync`)."""
        call = self.list_sessions(app_name=app_name, user_id=user_id)
        return run_to_end("list_sessions_sync", call)

    def delete_session_sync(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Deprecated synchronous :meth:`delete_session` (see :mod:`._sync`)."""
        call = self.delete_session(app_name=app_name, user_id=user_id, session_id=session_id)
        run_to_end("delete_session_sync", call)

    async def _create_session(
        self, app_name: str, user_id: str, prepared: PreparedCreate
    ) -> Session:
        key = (app_name, user_id, prepared.session_id)
        now = time.time()
        with self._lock:
            if key in self._sessions:
                raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")
            self._app_state.setdefault(app_name, {}).update(prepared.app_state)
            self._user_state.setdefault((app_name, user_id), {}).update(prepared.user_state)
            stored = _StoredSession(
                state=prepared.session_state,
                create_time=now,
                update_time=now,
                revision=len(prepared.events),
                events=[_StoredEvent(e.event_json, e.timestamp) for e in prepared.events],
                sequence_by_id={e.id: n for n, e in enumerate(prepared.events, 1)},
                creation_state=_copy(prepared.creation_state),
            )
            self._sessions[key] = stored
            return self._snapshot(key, stored, [])

    async def _merge_scope_state(
        self, app_name: str, user_id: str | None, state: dict[str, Any]
    ) -> None:
        with self._lock:
            if user_id is None:
                self._app_state.setdefault(app_name, {}).update(state)
            else:
                self._user_state.setdefault((app_name, user_id), {}).update(state)

    async def _get_session(
        self, app_name: str, user_id: str, session_id: str, config: GetSessionConfig | None
    ) -> Session | None:
        key = (app_name, user_id, session_id)
        with self._lock:
            stored = self._sessions.get(key)
            if stored is None:
                return None
            events = _select_events(stored.events, config)
            return self._snapshot(key, stored, events)

    async def _list_sessions(self, query: ListQuery) -> list[Session]:
        with self._lock:
            rows = sorted(
                (
                    (ListCursor(stored.update_time, key[1], key[2]), key, stored)
                    for key, stored in self._sessions.items()
                    if key[0] == query.app_name
                    and (query.user_id is None or key[1] == query.user_id)
                ),
                key=lambda row: row[0],
                reverse=True,
            )
            if query.after is not None:
                after = query.after
                rows = [row for row in rows if row[0] < after]
            page = rows if query.limit is None else rows[: query.limit]
            return [self._snapshot(key, stored, []) for _, key, stored in page]

    async def _stored_payloads(self, app_name: str, user_id: str, session_id: str) -> list[str]:
        with self._lock:
            stored = self._sessions.get((app_name, user_id, session_id))
            return [] if stored is None else [event.json for event in stored.events]

    async def _delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        with self._lock:
            self._forget((app_name, user_id, session_id))

    async def _idle_sessions(self, query: IdleQuery) -> list[IdleSession]:
        app_name, user_id, after = query.app_name, query.user_id, query.after
        with self._lock:
            found = sorted(
                (
                    IdleSession(key[1], key[2], stored.update_time)
                    for key, stored in self._sessions.items()
                    if key[0] == app_name
                    and (user_id is None or key[1] == user_id)
                    and stored.update_time < query.before
                ),
                key=lambda idle: (idle.last_update_time, idle.user_id, idle.session_id),
            )
        return [idle for idle in found if after is None or idle.after(after)][: query.limit]

    async def _delete_if_idle(self, app_name: str, idle: IdleSession, before: float) -> bool:
        key = (app_name, idle.user_id, idle.session_id)
        with self._lock:
            stored = self._sessions.get(key)
            if stored is None or stored.update_time >= before:
                return False
            if stored.claim_held_for(time.monotonic()) > 0:
                return False  # a turn is running on it
            self._forget(key)
            return True

    async def _append_event(self, session: Session, prepared: PreparedAppend) -> AppendResult:
        key = (session.app_name, session.user_id, session.id)
        with self._lock:
            stored = self._sessions.get(key)
            if stored is None:
                raise SessionNotFoundError(f"Session {session.id!r} does not exist.")
            if prepared.incarnation not in (None, stored.incarnation):
                raise StaleSessionError(RECREATED_SESSION_MESSAGE)
            sequence = stored.sequence_by_id.get(prepared.event.id)
            if sequence is not None:
                event = event_from_stored(
                    stored.events[sequence - 1].json, session.id, sequence - 1
                )
                return AppendResult(event, sequence, stored.update_time, already_stored=True)
            _check_claim(session.id, stored, prepared.fence)
            if stored.revision != prepared.expected_revision:
                raise StaleSessionError()
            return self._store(key, stored, prepared)

    def _store(self, key: _Key, stored: _StoredSession, prepared: PreparedAppend) -> AppendResult:
        """Commit ``prepared`` (its checks made), under the lock."""
        sequence = stored.revision + 1
        stored.events.append(_StoredEvent(prepared.event_json, prepared.event.timestamp))
        stored.sequence_by_id[prepared.event.id] = sequence
        stored.state.update(prepared.session_delta)
        if prepared.app_delta:
            self._app_state.setdefault(key[0], {}).update(prepared.app_delta)
        if prepared.user_delta:
            self._user_state.setdefault((key[0], key[1]), {}).update(prepared.user_delta)
        stored.revision = sequence
        stored.update_time = max(time.time(), stored.update_time)
        if prepared.release:  # the turn's last event: its claim ends with it
            self._release(key, stored, finished=True)
        return AppendResult(prepared.event, sequence, stored.update_time, released=prepared.release)

    async def _claim_and_read(
        self,
        key: _Key,
        lease_seconds: float,
        mark: str | None,
        token: int,
        read: ReadPlan,
        message: PreparedAppend | None,
    ) -> ClaimedStart | None:
        with self._lock:
            stored = self._existing(key)
            if stored.claim_until is not None:  # held, or left unreleased: the usual steps
                return None
            session = self._snapshot(key, stored, _select_events(stored.events, read.config))
            stored.claim_token = token
            stored.claim_until = time.monotonic() + lease_seconds
            stored.claim_took_over = False
            if mark is not None:
                self._set_open(key, stored, mark)
            attempt = ClaimAttempt(token, open_invocation=stored.open_invocation)
            result = None
            if message is not None:
                sequence = stored.sequence_by_id.get(message.event.id)
                if sequence is None:
                    result = self._store(key, stored, message)
                else:  # stored before (a retried message): nothing written
                    event = event_from_stored(
                        stored.events[sequence - 1].json, key[2], sequence - 1
                    )
                    result = AppendResult(event, sequence, stored.update_time, already_stored=True)
            return attempt, SessionTail(session, stored.incarnation, 0), result

    async def _fork_session(self, key: _Key, prepared: PreparedFork) -> None:
        target = (key[0], key[1], prepared.session_id)
        with self._lock:
            source = self._sessions.get(key)
            if (
                source is None
                or source.incarnation != prepared.incarnation
                or source.revision < prepared.sequence
            ):
                raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
            if target in self._sessions:
                raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")
            now = time.time()
            copied = [
                _StoredEvent(event.json, event.timestamp)
                for event in source.events[: prepared.sequence]
            ]
            self._sessions[target] = _StoredSession(
                state=dict(prepared.session_state),
                create_time=now,
                update_time=now,
                revision=prepared.sequence,
                events=copied,
                sequence_by_id={eid: i + 1 for i, eid in enumerate(prepared.event_ids)},
                creation_state=_copy(prepared.creation_state),
            )

    async def _creation_state(self, key: _Key, incarnation: str | None) -> dict[str, Any] | None:
        with self._lock:
            stored = self._sessions.get(key)
            if stored is None or incarnation not in (None, stored.incarnation):
                return None
            return _copy(stored.creation_state)

    async def _try_claim(
        self, key: _Key, lease_seconds: float, mark: str | None = None, *, token: int | None = None
    ) -> ClaimAttempt:
        with self._lock:
            stored = self._existing(key)
            now = time.monotonic()
            if token is not None and stored.claim_token == token and stored.claim_until:
                # A retry of this very acquisition: the first attempt's answer, lease restarted.
                stored.claim_until = now + lease_seconds
                return ClaimAttempt(
                    token, took_over=stored.claim_took_over, open_invocation=stored.open_invocation
                )
            held_for = stored.claim_held_for(now)
            if held_for > 0:
                return ClaimAttempt(None, held_for)
            took_over = stored.claim_until is not None  # ran out, never released
            stored.claim_token = new_claim_token() if token is None else token
            stored.claim_until = now + lease_seconds
            stored.claim_took_over = took_over
            if mark is not None and not (took_over and stored.open_invocation is not None):
                self._set_open(key, stored, mark)
            return ClaimAttempt(
                stored.claim_token, took_over=took_over, open_invocation=stored.open_invocation
            )

    async def _extend_claim(
        self, key: _Key, token: int, lease_seconds: float, mark: str | None = None
    ) -> bool:
        with self._lock:
            stored = self._sessions.get(key)
            if stored is None or stored.claim_token != token:
                return False
            stored.claim_until = time.monotonic() + lease_seconds
            if mark is not None:
                self._set_open(key, stored, mark)
            return True

    async def _release_claim(self, key: _Key, token: int, finished: bool = False) -> None:
        with self._lock:
            stored = self._sessions.get(key)
            if stored is not None and stored.claim_token == token:
                self._release(key, stored, finished=finished)

    def _release(self, key: _Key, stored: _StoredSession, *, finished: bool) -> None:
        stored.claim_until = None
        if finished:
            stored.open_invocation = None
            self._open.get(key[0], set()).discard(key)

    async def _open_invocations(
        self, app_name: str, user_id: str | None, session_id: str | None
    ) -> list[OpenInvocation]:
        with self._lock:
            now = time.monotonic()
            found = []
            for key in self._open.get(app_name, set()):
                if user_id is not None and key[1] != user_id:
                    continue
                if session_id is not None and key[2] != session_id:
                    continue
                stored = self._sessions[key]
                assert stored.open_invocation is not None
                held_for = stored.claim_held_for(now)
                status = status_of(released=stored.claim_until is None, held=held_for > 0)
                found.append(
                    OpenInvocation(
                        *key, stored.open_invocation, stored.open_since, status, held_for
                    )
                )
            return found

    def _set_open(self, key: _Key, stored: _StoredSession, invocation_id: str) -> None:
        stored.open_invocation = invocation_id
        stored.open_since = time.time()
        self._open.setdefault(key[0], set()).add(key)

    async def _get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        with self._lock:
            return codec.decode_state(self._user_state.get((app_name, user_id), {}))

    def _forget(self, key: _Key) -> None:
        self._sessions.pop(key, None)
        self._open.get(key[0], set()).discard(key)

    def _existing(self, key: _Key) -> _StoredSession:
        stored = self._sessions.get(key)
        if stored is None:
            raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
        return stored

    def _snapshot(self, key: _Key, stored: _StoredSession, events: list[_StoredEvent]) -> Session:
        app_name, user_id, session_id = key
        state = merge_state(
            codec.decode_state(stored.state),
            codec.decode_state(self._app_state.get(app_name, {})),
            codec.decode_state(self._user_state.get((app_name, user_id), {})),
        )
        session = Session(
            id=session_id,
            app_name=app_name,
            user_id=user_id,
            state=state,
            events=[event.read(session_id, i) for i, event in enumerate(events)],
            last_update_time=stored.update_time,
            revision=stored.revision,
        )
        session._incarnation = stored.incarnation
        return session


def _check_claim(session_id: str, stored: _StoredSession, fence: int | None) -> None:
    if fence is not None:
        if stored.claim_token != fence:
            raise ClaimLostError(session_id)
        return
    held_for = stored.claim_held_for(time.monotonic())
    if held_for > 0:
        raise SessionBusyError(session_id, held_for)


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


def _copy(state: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if state is None else dict(state)
