"""The SessionService contract every backend implements.

Guarantees, on every backend (items 1-8 are contract §4.1-§4.8, item 9 is contract §5, in
docs/explanation/contract.md):

1. **Atomic append.** The event, the session/app/user state changes and the revision bump
   commit together or not at all.
2. **Revisions, not clocks.** Each session has an integer ``revision``, bumped by every
   append; each event gets the next gapless per-session sequence number (equal to the
   revision it produced). History order is commit order, whatever the timestamps.
3. **Stale writers fail closed.** An append from a session object loaded at an older revision
   raises :class:`~adk_runtime.errors.StaleSessionError` and writes nothing, also between
   processes sharing one database or Redis server.
4. **Idempotent append.** Re-appending an event whose id is already stored in the session
   returns the stored event and changes nothing in storage (a retry after a lost
   acknowledgement). If that event is the one right after the caller's revision, the caller's
   session object is brought up to date as if the first attempt had been acknowledged. An
   id stored for a different event (author, content or actions differ) raises
   :class:`~adk_runtime.errors.EventIdConflictError` instead: one id, one event.
5. **Cheap reads.** ``get_session`` with ``GetSessionConfig(num_recent_events=k)`` costs O(k);
   state is stored materialized. ``list_sessions`` never returns events and is paginated.
6. **Typed errors** from :mod:`adk_runtime.errors`; bad input is rejected before anything is
   written; values are stored as JSON through :mod:`adk_runtime.codec` (never pickle).
7. **Isolation.** ``(app_name, user_id, session_id)`` is the key.
8. **Delete** removes the session and its events together; app and user state stay.
9. **One turn at a time** (:meth:`BaseSessionService.claim_session`). A turn claims its
   session in the store: a lease with an expiry (by the store's clock) and a fencing token
   new for every acquisition and never reused, not even after the session is deleted and
   created again (:func:`~adk_runtime.sessions.claims.new_claim_token`). An append, renewal or
   release made under a claim (``session._fence``) takes effect only while that claim is the
   session's latest; an append made without one is refused while another turn's lease runs.
   A crashed holder's lease simply runs out.

The public methods (google-adk's names and signatures) are concrete here and the same for
every backend: they validate the arguments, encode what will be stored, parse page tokens,
and only then call the backend's one storage step (a template method):

=======================  ============================================================
public method            backend step
=======================  ============================================================
``create_session``       :meth:`BaseSessionService._create_session`
``get_session``          :meth:`BaseSessionService._get_session`
``list_sessions``        :meth:`BaseSessionService._list_sessions` (order and paging:
                         :mod:`adk_runtime.sessions._paging`)
``delete_session``       :meth:`BaseSessionService._delete_session`
``append_event``         :meth:`BaseSessionService._append_event` (one atomic commit)
``claim_session``        :meth:`BaseSessionService._try_claim`, ``_extend_claim``,
                         ``_release_claim`` (one round trip each; two for a
                         SQL acquisition that finds the session held)
=======================  ============================================================

A backend never sees an unvalidated id, an unencoded value or a raw page token.
"""

from __future__ import annotations

import abc
import contextlib
import time
from collections.abc import Awaitable
from datetime import timedelta
from types import TracebackType
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, alias_generators

from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.sessions._cache import CachedSession, SessionCache
from adk_runtime.sessions._paging import ListCursor, ListQuery, validate_page_size
from adk_runtime.sessions._prepare import (
    AppendResult,
    PreparedAppend,
    PreparedCreate,
    ReadPlan,
    SessionTail,
    apply_result,
    check_event,
    check_retry,
    prepare_append,
    prepare_create,
)
from adk_runtime.sessions._traced import read_attributes, traced_append, traced_start
from adk_runtime.sessions._validation import (
    validate_id,
    validate_session_key,
)
from adk_runtime.sessions.claims import (
    DEFAULT_LEASE_SECONDS,
    ClaimAttempt,
    ClaimedStart,
    SessionClaim,
    SessionKey,
    StartedTurn,
    TurnStart,
)
from adk_runtime.sessions.fork import ForkArtifacts, PreparedFork, fork
from adk_runtime.sessions.invocations import OpenInvocation
from adk_runtime.sessions.retention import (
    DeleteArtifacts,
    IdleQuery,
    IdleSession,
    PruneResult,
    check_batch_size,
    check_idle_seconds,
    prune,
)
from adk_runtime.sessions.session import Session
from adk_runtime.telemetry import store_span, telemetry_enabled

__all__ = [
    "AppendResult",
    "BaseSessionService",
    "ClaimAttempt",
    "GetSessionConfig",
    "ListCursor",
    "ListQuery",
    "ListSessionsResponse",
    "PreparedAppend",
    "PreparedCreate",
    "SessionTail",
    "check_event",
]


class GetSessionConfig(BaseModel):
    """Which events ``get_session`` loads.

    Attributes:
        num_recent_events: Load only the last k events (0 loads none).
        after_timestamp: Load only events whose timestamp is >= this value.
    """

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    num_recent_events: int | None = Field(default=None, ge=0)
    after_timestamp: float | None = None


class ListSessionsResponse(BaseModel):
    """A page of sessions (without events) and the token of the next page, if any."""

    model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True)

    sessions: list[Session] = Field(default_factory=list)
    next_page_token: str | None = None


class BaseSessionService(abc.ABC):
    """Stores sessions, their events and their app/user/session state."""

    _session_cache: SessionCache | None = None
    """Recently read conversations (see :mod:`adk_runtime.sessions._cache`); None: off."""

    @property
    def db_system_name(self) -> str | None:
        """OpenTelemetry's ``db.system.name`` of the store's database, None if in-process.

        ``sqlite``, ``postgresql`` or ``redis``: set on every ``session_store.*`` span and on
        the store metrics, so two stores of one class (SQLite and PostgreSQL) are told apart.
        """
        return None

    def _store_span(self, operation: str) -> contextlib.AbstractContextManager[Any | None]:
        return store_span(operation, type(self).__name__, db_system=self.db_system_name)

    async def create_session(
        self,
        *,
        app_name: str,
        user_id: str,
        state: dict[str, Any] | None = None,
        session_id: str | None = None,
    ) -> Session:
        """Create a session.

        ``app:`` and ``user:`` keys of ``state`` go to the app and user state; ``temp:`` keys
        are dropped. A missing ``session_id`` gets a fresh uuid4.

        Raises:
            AlreadyExistsError: The session already exists; nothing changed.
            InputValidationError: An id is malformed.
            SerializationError: A state value cannot be stored (the error names its key).
        """
        prepared = prepare_create(app_name, user_id, state, session_id)
        with self._store_span("create"):
            return await self._create_session(app_name, user_id, prepared)

    async def get_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        config: GetSessionConfig | None = None,
    ) -> Session | None:
        """Return the session with its merged state and (some of) its events, or None.

        Raises:
            InputValidationError: An id is malformed.
        """
        validate_session_key(app_name, user_id, session_id)
        if config is not None:
            _validate_config(config)
        cache = self._session_cache
        with self._store_span("get") as span:
            if cache is None or config is not None:
                found = await self._get_session(app_name, user_id, session_id, config)
            else:
                found = await self._get_cached(cache, (app_name, user_id, session_id))
            if span is not None:
                span.set_attributes(read_attributes(found))
            return found

    async def list_sessions(
        self,
        *,
        app_name: str,
        user_id: str | None = None,
        page_size: int | None = None,
        page_token: str | None = None,
    ) -> ListSessionsResponse:
        """List sessions (merged state, no events), most recently updated first.

        Ties in update time are ordered by user id, then session id, both descending.
        ``page_size=None`` returns every session (google-adk's behaviour); otherwise at most
        ``page_size`` sessions and a ``next_page_token`` when more remain. An empty
        ``page_token`` is the first page.

        Raises:
            InputValidationError: An id or the page size is malformed, or the page token was
                not issued by a session service.
        """
        validate_id(app_name, "app_name")
        if user_id is not None:
            validate_id(user_id, "user_id")
        validate_page_size(page_size)
        after = ListCursor.from_token(page_token) if page_token else None
        limit = None if page_size is None else page_size + 1
        with self._store_span("list") as span:
            sessions = await self._list_sessions(ListQuery(app_name, user_id, limit, after))
            if span is not None:
                span.set_attribute("adk.store.sessions_returned", len(sessions))
        token = None
        if page_size is not None and len(sessions) > page_size:
            sessions = sessions[:page_size]
            token = ListCursor.of(sessions[-1]).token()
        return ListSessionsResponse(sessions=sessions, next_page_token=token)

    async def delete_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        artifact_service: DeleteArtifacts | None = None,
    ) -> None:
        """Delete the session and its events (app and user state stay); a no-op if missing.

        With ``artifact_service`` (keyword-only; google-adk's signature is otherwise kept),
        the session's own artifacts are deleted too, ``user:`` artifacts stay. They go after
        the session delete commits: a crash between leaves orphan artifacts, never a session
        whose files are gone; and they go even when the session is already gone, so calling
        this again finishes the job (see :mod:`adk_runtime.sessions.retention`).

        Raises:
            InputValidationError: An id is malformed.
        """
        validate_session_key(app_name, user_id, session_id)
        if self._session_cache is not None:
            self._session_cache.discard((app_name, user_id, session_id))
        with self._store_span("delete"):
            await self._delete_session(app_name, user_id, session_id)
        if artifact_service is not None:
            await artifact_service.delete_session_artifacts(
                app_name=app_name, user_id=user_id, session_id=session_id
            )

    async def get_user_state(self, *, app_name: str, user_id: str) -> dict[str, Any]:
        """Return one user's ``user:`` state in an app, keys without the prefix.

        It needs no session: it reads the state before the user's first session and after
        their last one is deleted. ``{}`` when nothing is stored.

        Raises:
            InputValidationError: An id is malformed.
            NotImplementedError: This store cannot read user state without a session.
        """
        validate_id(app_name, "app_name")
        validate_id(user_id, "user_id")
        return await self._get_user_state(app_name, user_id)

    async def _get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        """Return the stored ``user:`` state of ``(app_name, user_id)``, decoded, unprefixed."""
        raise NotImplementedError(
            f"{type(self).__name__} cannot read user state without a session; read it from "
            "any of the user's sessions (session.state['user:...'])."
        )

    async def _merge_scope_state(
        self, app_name: str, user_id: str | None, state: dict[str, Any]
    ) -> None:
        """Merge ``state`` into the app state (``user_id`` None) or the user's, atomically.

        ``state``: keys without their ``app:`` / ``user:`` prefix, values encoded with
        :mod:`adk_runtime.codec` (as ``PreparedCreate.app_state``). One statement,
        transaction or script; no session is read or written (an import's state lines).
        """
        raise NotImplementedError(f"{type(self).__name__} cannot write app or user state alone.")

    async def fork_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        new_session_id: str | None = None,
        at_event_id: str | None = None,
        artifact_service: ForkArtifacts | None = None,
    ) -> Session:
        """Create a new session holding this one's events up to ``at_event_id`` (or all).

        Written atomically: the new session row (its state as of that event, see
        :mod:`adk_runtime.sessions.fork`; revision = the number of events copied) and the
        copied events (same ids, timestamps and content). App and user state are shared.
        With ``artifact_service``, the session's artifacts as of that event are copied too
        (same version numbers; ``user:`` artifacts are shared); if that fails, the fork is
        deleted again and the error raised.

        Args:
            app_name: The app.
            user_id: The user (the fork belongs to the same user).
            session_id: The session to fork.
            new_session_id: The new session's id (None: a new id from adk_runtime.platform).
            at_event_id: The last event to copy (None: every event).
            artifact_service: The artifact store whose session artifacts follow the fork
                (None: none are copied, and the fork cannot load the artifacts its
                history names).

        Returns:
            The new session, with its events.

        Raises:
            SessionNotFoundError: The source does not exist (or was deleted meanwhile).
            AlreadyExistsError: ``new_session_id`` is taken (or, with ``artifact_service``,
                its artifact store still holds artifacts of an earlier session of that id;
                the fork is deleted again).
            EventNotFoundError: ``at_event_id`` is not an event of the source.
            InputValidationError: An id is malformed.
        """
        new_id = platform_uuid.new_uuid() if new_session_id is None else new_session_id
        key = (app_name, user_id, session_id)
        return await fork(self, key, new_id, at_event_id, artifact_service)

    async def _fork_session(self, key: SessionKey, prepared: PreparedFork) -> None:
        """Write the fork atomically; nothing is written when a check fails.

        Checks: the source exists, is still ``prepared.incarnation`` and holds at least
        ``prepared.sequence`` events (else ``SessionNotFoundError``); the new key is free
        (else ``AlreadyExistsError``).
        """
        raise NotImplementedError(f"{type(self).__name__} does not support forking.")

    async def _creation_state(
        self, key: SessionKey, incarnation: str | None
    ) -> dict[str, Any] | None:
        """The session-scoped state the session was created with, as stored (values encoded).

        None when unknown: the session was stored before its store kept creation states, or
        it no longer exists or is not ``incarnation`` any more (None: not checked), or this
        store keeps none. One read, made only by a fork, a rewind or an export (see
        :mod:`adk_runtime.sessions.fork`); ``get_session`` never reads it.
        """
        return None

    async def prune_sessions(
        self,
        *,
        app_name: str,
        user_id: str | None = None,
        idle_longer_than: float | timedelta,
        dry_run: bool = False,
        batch_size: int = 500,
        artifact_service: DeleteArtifacts | None = None,
    ) -> PruneResult:
        """Delete the sessions of the app (or of one user) idle longer than ``idle_longer_than``.

        Oldest first, ``batch_size`` read at a time through an index; each session deleted on
        its own, only if it is still idle then and no turn holds it (see
        :mod:`adk_runtime.sessions.retention`). App and user state stay. With
        ``artifact_service``, each pruned session's own artifacts are deleted after it.

        Args:
            app_name: The app.
            user_id: Only this user's sessions (None: every user's).
            idle_longer_than: Seconds (or a timedelta) since a session's last write.
            dry_run: List what would be deleted; delete nothing.
            batch_size: Sessions read per batch (1 to 10,000).
            artifact_service: The artifact store whose session artifacts go with each pruned
                session (None: they stay).

        Raises:
            InputValidationError: An id, the idle time or the batch size is malformed.
        """
        validate_id(app_name, "app_name")
        if user_id is not None:
            validate_id(user_id, "user_id")
        before = time.time() - check_idle_seconds(idle_longer_than)
        limit = check_batch_size(batch_size)
        return await prune(
            self, app_name, user_id, before, limit, dry_run=dry_run, artifacts=artifact_service
        )

    @abc.abstractmethod
    async def _create_session(
        self, app_name: str, user_id: str, prepared: PreparedCreate
    ) -> Session:
        """Store a new session with ``prepared``'s state, atomically, and return it.

        Raises ``AlreadyExistsError`` (and changes nothing) when the key is taken. App and
        user state are merged into their rows in the same atomic step.
        """

    @abc.abstractmethod
    async def _get_session(
        self, app_name: str, user_id: str, session_id: str, config: GetSessionConfig | None
    ) -> Session | None:
        """Read the session, its merged state and the events ``config`` selects, or None.

        One consistent snapshot: the events returned are those up to the session's revision.
        """

    async def _get_session_tail(
        self, app_name: str, user_id: str, session_id: str, after_revision: int | None
    ) -> SessionTail | None:
        """Read the session with only its events after ``after_revision`` (all when None).

        One consistent snapshot, one round trip. Backends that support the cache implement
        it; the default says the cache is not supported.
        """
        raise NotImplementedError(f"{type(self).__name__} does not support a session cache.")

    async def _stored_payloads(self, app_name: str, user_id: str, session_id: str) -> list[str]:
        """The session's events as stored (JSON text), oldest first, without decoding them.

        For exporting a session whose stored events cannot all be read back.
        """
        raise NotImplementedError(f"{type(self).__name__} cannot read raw events.")

    async def _get_cached(self, cache: SessionCache, key: tuple[str, str, str]) -> Session | None:
        entry = cache.get(key)
        tail = await self._get_session_tail(*key, None if entry is None else entry.revision)
        if tail is not None and entry is not None and tail.identity != entry.identity:
            entry = None  # deleted and created again elsewhere: read it whole
            tail = await self._get_session_tail(*key, None)
        if tail is None:
            cache.discard(key)
            return None
        return _remember(cache, key, entry, tail)

    async def _start_turn(
        self, key: SessionKey, lease_seconds: float, mark: str | None, token: int, start: TurnStart
    ) -> StartedTurn | None:
        """Claim a free session, read it and commit ``start.message``, in one step.

        The read goes through the session cache when it is on and ``start.config`` is None,
        as ``get_session``'s does. None: not done (see :meth:`_claim_and_read`).
        """
        cache = self._session_cache if start.config is None else None
        entry = None if cache is None else cache.get(key)
        plan = ReadPlan(start.config)
        if entry is not None:
            plan = ReadPlan(None, entry.revision, entry.identity)

        def step() -> Awaitable[ClaimedStart | None]:
            return self._claim_and_read(key, lease_seconds, mark, token, plan, start.message)

        if telemetry_enabled():  # the same step, in a span
            found = await traced_start(step, type(self).__name__, self.db_system_name, key[2])
        else:
            found = await step()
        if found is None:
            return None
        attempt, tail, result = found
        session = tail.session if cache is None else _remember(cache, key, entry, tail)
        return StartedTurn(attempt, session, result)

    async def _claim_and_read(
        self,
        key: SessionKey,
        lease_seconds: float,
        mark: str | None,
        token: int,
        read: ReadPlan,
        message: PreparedAppend | None,
    ) -> ClaimedStart | None:
        """Claim the session if it is free, read it and commit ``message``: one atomic step.

        Only a session whose last claim was released (or that was never claimed) is claimed
        here, as ``_try_claim`` claims it (token ``token``, lease, ``mark``); the read is the
        snapshot before ``message`` (``read``: the events of ``get_session``'s config, or
        the cache's tail); ``message`` (no revision or claim checks: the step holds the
        claim) is committed as ``_append_event`` commits, or reported ``already_stored``.
        Returns None, having written nothing, when the session is held or was left
        unreleased (the turn then takes the usual steps), or when the store cannot do this
        in one step (the default). Raises ``SessionNotFoundError`` when it does not exist.
        """
        return None

    @abc.abstractmethod
    async def _list_sessions(self, query: ListQuery) -> list[Session]:
        """Return the first ``query.limit`` sessions after ``query.after`` (no events).

        In listing order (see :mod:`adk_runtime.sessions._paging`).
        """

    @abc.abstractmethod
    async def _delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        """Delete the session and its events atomically; a no-op if it does not exist."""

    async def _idle_sessions(self, query: IdleQuery) -> list[IdleSession]:
        """One batch of the sessions ``query`` asks for (see :class:`IdleQuery`).

        Up to ``query.limit`` sessions of the app (of one user) last written before
        ``query.before``, oldest first, after ``query.after``.

        Order: last update time, then user id, then session id (ascending). Read through an
        index: the cost is the sessions returned, not the sessions stored.
        """
        raise NotImplementedError(f"{type(self).__name__} does not support pruning.")

    async def _delete_if_idle(self, app_name: str, idle: IdleSession, before: float) -> bool:
        """Delete the session if it is still idle; return whether it was deleted.

        Deleted (with its events) only if it was last written before ``before`` and no turn
        holds it. Atomic: one statement or script.
        """
        raise NotImplementedError(f"{type(self).__name__} does not support pruning.")

    @abc.abstractmethod
    async def _append_event(self, session: Session, prepared: PreparedAppend) -> AppendResult:
        """Commit ``prepared`` atomically: the backend's one job in an append.

        In one atomic step: if the event id is already stored in the session, return it with
        ``already_stored=True`` and change nothing; else if the session is gone raise
        ``SessionNotFoundError``; else if it is another incarnation than
        ``prepared.incarnation`` (deleted and created again) or its revision differs from
        ``prepared.expected_revision`` raise ``StaleSessionError``; else store the event with
        sequence ``expected_revision + 1``, apply the three deltas and bump the revision.
        """

    @abc.abstractmethod
    async def _try_claim(
        self,
        key: SessionKey,
        lease_seconds: float,
        mark: str | None = None,
        *,
        token: int | None = None,
    ) -> ClaimAttempt:
        """Claim the session if no other claim's lease runs; one atomic step.

        On success the session's claim token becomes ``token``, the caller's
        :func:`~adk_runtime.sessions.claims.new_claim_token` (one is drawn when None), and is
        returned, and its lease runs ``lease_seconds`` from now by the store's clock. When the
        session's claim already carries ``token``, the step is a retry of an acquisition that
        landed (its reply was lost): it succeeds again with the first answer (``took_over``,
        the open invocation) and restarts the lease, never reporting the session held. With
        ``mark``, the session's open invocation becomes ``mark`` (started now), unless the
        claim takes over from a holder whose lease ran out and an open invocation is
        recorded: that one stays.
        The attempt reports the open invocation after the step. Raises
        ``SessionNotFoundError`` when the session does not exist.
        """

    @abc.abstractmethod
    async def _extend_claim(
        self, key: SessionKey, token: int, lease_seconds: float, mark: str | None = None
    ) -> bool:
        """Restart the lease of claim ``token``; False (and no change) if it is not the latest.

        With ``mark``, the session's open invocation becomes ``mark`` (started now).
        """

    @abc.abstractmethod
    async def _release_claim(self, key: SessionKey, token: int, finished: bool = False) -> None:
        """End claim ``token``'s lease now if it is still the latest (else do nothing).

        ``finished``: the turn ended normally; clear the session's open invocation too.
        """

    async def _open_invocations(
        self, app_name: str, user_id: str | None, session_id: str | None
    ) -> list[OpenInvocation]:
        """The open invocations of the app (of one user, of one session), through an index."""
        raise NotImplementedError(f"{type(self).__name__} does not track open invocations.")

    async def list_interrupted_invocations(
        self,
        *,
        app_name: str,
        user_id: str | None = None,
        session_id: str | None = None,
        include_running: bool = False,
    ) -> list[OpenInvocation]:
        """List the invocations that started and did not finish (see :mod:`.invocations`).

        Oldest first. Cost: the sessions with an open invocation in the scope asked for (an
        index of those sessions only), never a scan of sessions or events.

        Args:
            app_name: The app.
            user_id: Only this user's (None: every user's).
            session_id: Only this session's (needs ``user_id``).
            include_running: Also list invocations whose turn is still running.

        Raises:
            InputValidationError: An id is malformed, or ``session_id`` without ``user_id``.
        """
        validate_id(app_name, "app_name")
        if user_id is not None:
            validate_id(user_id, "user_id")
        if session_id is not None:
            if user_id is None:
                raise InputValidationError("session_id needs user_id.")
            validate_id(session_id, "session_id")
        found = await self._open_invocations(app_name, user_id, session_id)
        found.sort(key=lambda item: (item.started_at, item.user_id, item.session_id))
        return [item for item in found if include_running or item.interrupted]

    def claim_session(
        self,
        *,
        app_name: str,
        user_id: str,
        session_id: str,
        wait_seconds: float = 0.0,
        lease_seconds: float = DEFAULT_LEASE_SECONDS,
        invocation_id: str | None = None,
        start: TurnStart | None = None,
    ) -> SessionClaim:
        """Hold the session for one turn: ``async with service.claim_session(...) as claim``.

        Entering waits up to ``wait_seconds`` for another holder to finish (polling the
        store), then raises :class:`~adk_runtime.errors.SessionBusyError`. While held, the
        lease is renewed in the background every third of ``lease_seconds``; a holder that
        dies stops renewing and its lease runs out. Set ``session._fence = claim.token`` on
        the session object the turn writes with (the Runner does), so its appends fail with
        :class:`~adk_runtime.errors.ClaimLostError` if the claim was ever taken over.
        With ``invocation_id`` the session records it as its open invocation until a release
        after ``claim.finish()`` (see :mod:`adk_runtime.sessions.claims`). With ``start``
        (a :class:`~adk_runtime.sessions.claims.TurnStart`), a free session is also read and
        the turn's message committed in the acquisition's round trip where the store can
        (``claim.started``).

        Raises:
            SessionNotFoundError: The session does not exist (on entering).
            SessionBusyError: Still held by another turn after ``wait_seconds`` (on entering).
            InputValidationError: An id or a duration is malformed.
        """
        validate_session_key(app_name, user_id, session_id)
        if invocation_id is not None:
            validate_id(invocation_id, "invocation_id")
        key = (app_name, user_id, session_id)
        return SessionClaim(self, key, wait_seconds, lease_seconds, invocation_id, start)

    async def append_event(self, session: Session, event: Event) -> Event:
        """Commit ``event`` to ``session`` and update the ``session`` object.

        Partial events are returned untouched and never stored. ``temp:`` keys are applied to
        ``session.state`` (visible for the rest of the invocation) and removed from the event's
        ``state_delta``; the rest is committed atomically (see the module docstring).

        Returns:
            The committed event (the stored one when the id was already stored).

        Raises:
            StaleSessionError: Storage moved past ``session.revision``; nothing was written.
            SessionNotFoundError: The session no longer exists.
            SerializationError: A value cannot be stored (the error names its key path).
            InputValidationError: An id is malformed.
            EventIdConflictError: The event id is stored in the session for a different
                event; nothing was written.
        """
        if event.partial:
            return event
        return (await self.commit_event(session, event)).event

    async def commit_event(self, session: Session, event: Event) -> AppendResult:
        """:meth:`append_event` for a non-partial event, saying what the commit did.

        ``already_stored`` is True when the event id was stored before (an idempotent
        retry): then ``event`` is the stored event and storage did not change.

        Raises:
            InputValidationError: The event is partial (partial events are never stored).
            StaleSessionError: As :meth:`append_event`.
            SessionNotFoundError: As :meth:`append_event`.
            SerializationError: As :meth:`append_event`.
            EventIdConflictError: As :meth:`append_event`.
        """
        if event.partial:
            raise InputValidationError("A partial event is never stored; commit the final one.")
        prepared, temp = prepare_append(session, event)
        if telemetry_enabled():  # the same path, in a span, timed and counted
            backend = type(self).__name__
            result = await traced_append(
                self._commit, session, prepared, backend, self.db_system_name
            )
        else:
            result = await self._commit(session, prepared)
        apply_result(session, prepared, temp, result)
        return result

    async def _commit(self, session: Session, prepared: PreparedAppend) -> AppendResult:
        """The one append path: the backend's atomic step, then a retry's check.

        A stored event found under the id must be the one appended (else
        ``EventIdConflictError``, see :func:`~adk_runtime.sessions._prepare.check_retry`).
        """
        result = await self._append_event(session, prepared)
        if result.already_stored:
            check_retry(session.id, prepared, result.event)
        return result

    async def flush(self) -> None:
        """google-adk's hook for stores that buffer events: nothing to do here.

        Every store here commits each event before ``append_event`` returns.
        """
        return None

    async def close(self) -> None:
        """Release what the service opened (connections, clients); the default has nothing."""
        return None

    async def __aenter__(self) -> BaseSessionService:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


def _remember(
    cache: SessionCache, key: SessionKey, entry: CachedSession | None, tail: SessionTail
) -> Session:
    """The session of ``tail`` with the cached events before it; the cache updated."""
    session = tail.session
    events: tuple[Event, ...] = tuple(session.events)
    size = tail.size
    if entry is not None and entry.identity == tail.identity:
        events = entry.events + events
        size += entry.size
    cache.put(key, CachedSession(tail.identity, session.revision, events, size))
    session.events = list(events)
    return session


_FLOAT_LIMIT = 2**1024
"""Integers from here on have no float (``float()`` overflows); the stores compare floats."""

MAX_RECENT_EVENTS = 2**31 - 1
"""Largest ``num_recent_events`` (the largest integer every store takes as a row count)."""


def _validate_config(config: GetSessionConfig) -> None:
    count = config.num_recent_events
    if count is not None and (
        isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_RECENT_EVENTS
    ):
        raise InputValidationError(
            f"num_recent_events must be an integer from 0 to {MAX_RECENT_EVENTS}."
        )
    after: Any = config.after_timestamp  # model_construct / assignment skip validation
    if after is not None and (isinstance(after, bool) or not isinstance(after, (int, float))):
        raise InputValidationError("after_timestamp must be a number of seconds.")
    if isinstance(after, int) and not -_FLOAT_LIMIT < after < _FLOAT_LIMIT:
        raise InputValidationError("after_timestamp is out of range (beyond every float).")
