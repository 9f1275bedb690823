"""SpannerSessionService: durable sessions on Cloud Spanner, one transaction per write.

The service is the contract's storage steps; the rest lives by concern:

=======================  ===============================================================
module                   concern
=======================  ===============================================================
:mod:`._options`         the URL and its options
:mod:`._link`            the async client, the session pool, reads, read-write
                         transactions (retried when Spanner aborts them), driver errors
:mod:`._schema`          the tables and indexes, and ``adk-runtime db`` (upgrade, status)
:mod:`._queries`         the SQL
:mod:`._claims`          claims and open invocations
:mod:`._rows`            rows as sessions and events
:mod:`._stream`          streamed query results (no 10 MiB limit on a result)
:mod:`._expiry`          the idle TTL: expired sessions, ``expire_at``, the sweep
:mod:`._limits`          Spanner's size limits, checked before anything is sent
=======================  ===============================================================

**Writes.** An append is one read-write transaction of two round trips: one query, which
begins the transaction inline, reads what the append checks (the session's revision,
incarnation and claim, the event id in ``adk_events_by_id``, and the app or user state it
merges into, only when the event changes them), then one ``Commit`` carrying the mutations
(the event row, the session row with its new revision and state, the app and user state
rows). A refused append rolls back and writes nothing. When Spanner aborts the transaction
(two writers of one session), it runs again from the query: a retry finds the revision
moved (``StaleSessionError``) or, after a commit whose reply was lost, its own event id
(returned as stored, never written twice).

**Times** are Spanner's: a session's update time is its last write's commit timestamp
(monotonic per session), a lease runs out by ``CURRENT_TIMESTAMP()``.

**Reads** are one statement each (:mod:`._queries`), streamed, in a strong single-use
read-only transaction: one round trip, no locks.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable
from typing import Any

from adk_runtime import codec
from adk_runtime.errors import (
    RECREATED_SESSION_MESSAGE,
    AlreadyExistsError,
    ClaimLostError,
    SessionBusyError,
    SessionNotFoundError,
    StaleSessionError,
)
from adk_runtime.events import Event, event_from_stored
from adk_runtime.sessions._cache import SessionCache
from adk_runtime.sessions._prepare import ReadPlan
from adk_runtime.sessions.base import (
    MAX_RECENT_EVENTS,
    AppendResult,
    BaseSessionService,
    ClaimAttempt,
    GetSessionConfig,
    ListQuery,
    PreparedAppend,
    PreparedCreate,
    SessionTail,
)
from adk_runtime.sessions.claims import SessionKey
from adk_runtime.sessions.fork import PreparedFork
from adk_runtime.sessions.invocations import OpenInvocation
from adk_runtime.sessions.retention import IdleQuery, IdleSession
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.spanner import _claims, _options, _queries
from adk_runtime.sessions.spanner._expiry import Expiry, lease_expiry
from adk_runtime.sessions.spanner._limits import check_commit, check_value
from adk_runtime.sessions.spanner._link import Transaction, Write
from adk_runtime.sessions.spanner._rows import events_of, session_of, state_of
from adk_runtime.sessions.spanner._schema import (
    shard_of,
)
from adk_runtime.sessions.spanner._values import (
    COMMIT_TIMESTAMP,
    Blob,
    Param,
    Timestamp,
    micros,
    seconds,
)
from adk_runtime.sessions.spanner.store import SpannerDatabase

__all__ = ["SpannerSessionService"]

_SESSION_ROW = ("app_name", "user_id", "session_id")
_EVENT_COLUMNS = (
    *_SESSION_ROW,
    "sequence",
    "event_id",
    "invocation_id",
    "timestamp",
    "payload",
)


def _key_params(key: SessionKey) -> dict[str, Param]:
    return {"app": key[0], "user": key[1], "sid": key[2]}


_CREATE_CHECK = (
    f"SELECT (SELECT {_queries.ALIVE} FROM adk_sessions s WHERE {_queries.KEY}), "
    "(SELECT a.state FROM adk_app_states a WHERE a.app_name = @app), "
    "(SELECT u.state FROM adk_user_states u WHERE u.app_name = @app AND u.user_id = @user), "
    "UNIX_MICROS(CURRENT_TIMESTAMP())"
)
"""What a create reads: whether the session is there (NULL: no row; FALSE: expired), the
states it merges into, the clock."""

_FORK_CHECK = (
    "SELECT s.incarnation, s.revision, "
    "(SELECT COUNT(*) FROM adk_sessions t WHERE t.app_name = @app "
    "AND t.user_id = @user AND t.session_id = @target), "
    f"{_queries.ALIVE}, "
    "ARRAY(SELECT AS STRUCT BYTE_LENGTH(e.payload), CHAR_LENGTH(e.event_id) FROM adk_events e "
    "WHERE e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.session_id "
    "AND e.sequence <= @upto), "
    f"UNIX_MICROS(CURRENT_TIMESTAMP()) FROM adk_sessions s WHERE {_queries.KEY}"
)
"""What a fork reads first: the source's incarnation and revision, whether the target exists,
whether the source is there (:data:`._queries.ALIVE`), the size of each event to copy (so a
fork too large for one transaction is refused before the events are read), the clock."""
_FORK_HINT = "Fork at an earlier event, or export the session and import it in parts."


def _merged(stored: str | None, delta: dict[str, Any]) -> Blob:
    state = state_of(stored)
    state.update(delta)
    text = codec.dumps(state)
    check_value("state", text)
    return Blob(text)


def _blob(state: dict[str, Any] | None) -> Blob | None:
    return None if state is None else _merged(None, state)


def _event_rows(events: Iterable[tuple[int, int]]) -> list[tuple[str, int, int]]:
    """:func:`._limits.check_commit` rows of event inserts: (payload bytes, id length) each."""
    return [("adk_events", len(_EVENT_COLUMNS), size + 3 * length + 200) for size, length in events]


def _new_session(
    mode: str,
    key: tuple[str, str, str],
    incarnation: str,
    revision: int,
    states: tuple[dict[str, Any], dict[str, Any] | None],
    expire_at: Any,
) -> Write:
    """The row of a session created (``mode``: insert, or replace an expired one) or forked.

    ``states``: its state and its creation state. Unclaimed, stamped with the commit time.
    """
    state, creation = states
    return Write(
        mode,
        "adk_sessions",
        (
            *_SESSION_ROW,
            "shard",
            "incarnation",
            "revision",
            "state",
            "creation_state",
            "create_time",
            "update_time",
            "claim_token",
            "claim_took_over",
            "expire_at",
        ),
        (
            *key,
            shard_of(key[1], key[2]),
            incarnation,
            revision,
            _blob(state),
            _blob(creation),
            COMMIT_TIMESTAMP,
            COMMIT_TIMESTAMP,
            0,
            False,
            expire_at,
        ),
    )


def _scope_writes(
    app_name: str,
    user_id: str,
    app: tuple[str | None, dict[str, Any]],
    user: tuple[str | None, dict[str, Any]],
) -> list[Write]:
    writes = []
    if app[1]:
        values = (app_name, _merged(app[0], app[1]))
        writes.append(Write("insert_or_update", "adk_app_states", ("app_name", "state"), values))
    if user[1]:
        values_u = (app_name, user_id, _merged(user[0], user[1]))
        columns = ("app_name", "user_id", "state")
        writes.append(Write("insert_or_update", "adk_user_states", columns, values_u))
    return writes


class SpannerSessionService(BaseSessionService, SpannerDatabase):
    """Sessions on Cloud Spanner (see the module docstring for the layout and its costs)."""

    def __init__(
        self,
        database: str,
        *,
        emulator_host: str | None = None,
        max_sessions: int = 100,
        timeout: float = 30.0,
        cache_bytes: int | None = None,
        ttl_seconds: float | None = None,
    ) -> None:
        """Create the service (nothing is sent before the first call).

        Args:
            database: ``projects/P/instances/I/databases/D``.
            emulator_host: ``host:port`` of a Spanner emulator (plain gRPC, no credentials);
                None: ``$SPANNER_EMULATOR_HOST`` if set, else Spanner itself with the
                application default credentials.
            max_sessions: Spanner sessions the service keeps at most (one transaction or
                read each at a time); a call beyond them waits for a free one.
            timeout: Seconds one RPC may take before it fails with ``BackendUnavailableError``.
            cache_bytes: Keep recently read conversations (up to this many bytes of event
                JSON) so a full ``get_session`` reads only the newer events. None: no cache.
            ttl_seconds: Expire a session not written for this many seconds and not held by a
                turn: it is gone for readers and writers at once, and removed in the
                background (see :mod:`._expiry`). None (the default): sessions never expire.

        Raises:
            ConfigurationError: The database path or an option is malformed.
        """
        self._expiry = Expiry(ttl_seconds)
        SpannerDatabase.__init__(
            self, database, emulator_host=emulator_host, max_sessions=max_sessions, timeout=timeout
        )
        if cache_bytes is not None:
            self._session_cache = SessionCache(cache_bytes)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> SpannerSessionService:
        """Build the service for ``spanner:///projects/P/instances/I/databases/D?options``.

        The query may set ``emulator_host``, ``max_sessions``, ``timeout``, ``cache_bytes``
        and ``ttl_seconds``; keyword arguments win.
        """
        database, options = _options.split_url(url)
        return cls(database, **{**options, **kwargs})

    @property
    def db_system_name(self) -> str:
        """``gcp.spanner`` (OpenTelemetry's ``db.system.name``)."""
        return "gcp.spanner"

    async def close(self) -> None:
        """Stop background sweeps, delete the service's Spanner sessions, close its client."""
        await self._expiry.close()
        await self._link.close()

    # -- create, read, list, delete ------------------------------------------------------

    async def _create_session(
        self, app_name: str, user_id: str, prepared: PreparedCreate
    ) -> Session:
        key = (app_name, user_id, prepared.session_id)
        incarnation = uuid.uuid4().hex
        for event in prepared.events:  # nothing is sent for a session Spanner cannot hold
            check_value("event", event.event_json)
        sizes = ((len(e.event_json.encode()), len(e.id)) for e in prepared.events)
        check_commit(_event_rows(sizes), "create_session")

        async def body(transaction: Transaction) -> list[Any]:
            params = _key_params(key) | {"ttl": self._expiry.ttl_micros}
            alive, app_state, user_state, now = (await transaction.query(_CREATE_CHECK, params))[0]
            if alive:
                raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")
            creation = prepared.creation_state
            transaction.write(
                _new_session(
                    "insert" if alive is None else "replace",  # replace: an expired session
                    key,
                    incarnation,
                    len(prepared.events),
                    (prepared.session_state, creation),
                    self._expiry.expire_at(now),
                ),
                *_scope_writes(
                    app_name,
                    user_id,
                    (app_state, prepared.app_state),
                    (user_state, prepared.user_state),
                ),
                *(
                    Write(
                        "insert",
                        "adk_events",
                        _EVENT_COLUMNS,
                        (*key, n, e.id, e.invocation_id, e.timestamp, Blob(e.event_json)),
                    )
                    for n, e in enumerate(prepared.events, 1)
                ),
            )
            app = state_of(app_state) | prepared.app_state
            user = state_of(user_state) | prepared.user_state
            return [app, user]

        self._expiry.maybe_sweep(self, app_name)
        (app, user), stamp = await self._link.transact("create_session", body)
        assert stamp is not None
        row = [
            user_id,
            prepared.session_id,
            len(prepared.events),
            incarnation,
            codec.dumps(prepared.session_state),
            stamp,
            codec.dumps(app),
            codec.dumps(user),
        ]
        return session_of(app_name, row)

    async def _merge_scope_state(
        self, app_name: str, user_id: str | None, state: dict[str, Any]
    ) -> None:
        async def body(transaction: Transaction) -> None:
            if user_id is None:
                rows = await transaction.query(
                    "SELECT state FROM adk_app_states WHERE app_name = @app", {"app": app_name}
                )
                stored = rows[0][0] if rows else None
                transaction.write(*_scope_writes(app_name, "", (stored, state), (None, {})))
                return
            rows = await transaction.query(
                "SELECT state FROM adk_user_states WHERE app_name = @app AND user_id = @user",
                {"app": app_name, "user": user_id},
            )
            stored = rows[0][0] if rows else None
            transaction.write(*_scope_writes(app_name, user_id, (None, {}), (stored, state)))

        await self._link.transact("merging state", body)

    async def _read_session(
        self, key: SessionKey, config: GetSessionConfig | None, since: int | None
    ) -> tuple[Session, int] | None:
        params, sql = _read_params(key, config, since, turn=False)
        params["ttl"] = self._expiry.ttl_micros
        found = _split(await self._link.read(sql, params))
        if found is None:
            return None
        row, newest_first = found
        events = events_of(key[2], newest_first)
        size = sum(len(payload) for _, payload in newest_first)
        return session_of(key[0], row, events), size

    async def _get_session(
        self, app_name: str, user_id: str, session_id: str, config: GetSessionConfig | None
    ) -> Session | None:
        found = await self._read_session((app_name, user_id, session_id), config, None)
        return None if found is None else found[0]

    async def _get_session_tail(
        self, app_name: str, user_id: str, session_id: str, after_revision: int | None
    ) -> SessionTail | None:
        found = await self._read_session((app_name, user_id, session_id), None, after_revision)
        if found is None:
            return None
        session, size = found
        return SessionTail(session, session._incarnation or "", size)

    async def _list_sessions(self, query: ListQuery) -> list[Session]:
        params: dict[str, Param] = {"app": query.app_name, "ttl": self._expiry.ttl_micros}
        if query.user_id is not None:
            params["user"] = query.user_id
        if query.limit is not None:
            params["limit"] = query.limit
        if query.after is not None:
            params["t"] = micros(query.after.update_time)
            params["cu"] = query.after.user_id
            params["cs"] = query.after.session_id
        sql = _queries.list_page(
            user=query.user_id is not None,
            after=query.after is not None,
            limited=query.limit is not None,
        )
        rows = await self._link.read(sql, params)
        return [session_of(query.app_name, row) for row in rows]

    async def _get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        rows = await self._link.read(
            "SELECT state FROM adk_user_states WHERE app_name = @app AND user_id = @user",
            {"app": app_name, "user": user_id},
        )
        return codec.decode_state(state_of(rows[0][0] if rows else None))

    async def _stored_payloads(self, app_name: str, user_id: str, session_id: str) -> list[str]:
        rows = await self._link.read(
            "SELECT e.payload FROM adk_events e WHERE e.app_name = @app AND e.user_id = @user "
            "AND e.session_id = @sid ORDER BY e.sequence",
            _key_params((app_name, user_id, session_id)),
        )
        return [row[0] for row in rows]

    async def _creation_state(
        self, key: SessionKey, incarnation: str | None
    ) -> dict[str, Any] | None:
        rows = await self._link.read(
            f"SELECT s.incarnation, s.creation_state FROM adk_sessions s WHERE {_queries.KEY}",
            _key_params(key),
        )
        if not rows or rows[0][1] is None or incarnation not in (None, rows[0][0]):
            return None
        return state_of(rows[0][1])

    async def _delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        key = (app_name, user_id, session_id)
        await self._link.write("delete_session", [Write("delete", "adk_sessions", key=key)])

    async def _idle_sessions(self, query: IdleQuery) -> list[IdleSession]:
        params: dict[str, Param] = {
            "app": query.app_name,
            "before": micros(query.before),
            "limit": query.limit,
        }
        if query.user_id is not None:
            params["user"] = query.user_id
        if query.after is not None:
            params["t"] = micros(query.after.last_update_time)
            params["cu"] = query.after.user_id
            params["cs"] = query.after.session_id
        sql = _queries.idle_page(user=query.user_id is not None, after=query.after is not None)
        rows = await self._link.read(sql, params)
        return [IdleSession(user, sid, seconds(mtime)) for user, sid, mtime in rows]

    async def _delete_if_idle(self, app_name: str, idle: IdleSession, before: float) -> bool:
        key = (app_name, idle.user_id, idle.session_id)

        async def body(transaction: Transaction) -> bool:
            rows = await transaction.query(
                "SELECT UNIX_MICROS(s.update_time), UNIX_MICROS(s.claim_until), "
                f"UNIX_MICROS(CURRENT_TIMESTAMP()) FROM adk_sessions s WHERE {_queries.KEY}",
                _key_params(key),
            )
            if not rows:
                return False
            mtime, until, now = rows[0]
            if mtime >= micros(before) or (until is not None and until > now):
                return False
            transaction.write(Write("delete", "adk_sessions", key=key))
            return True

        deleted, _ = await self._link.transact("pruning", body)
        return deleted

    # -- append ----------------------------------------------------------------------------

    async def _append_event(self, session: Session, prepared: PreparedAppend) -> AppendResult:
        check_value("event", prepared.event_json)  # before anything is sent
        key = (session.app_name, session.user_id, session.id)
        sql = _queries.append_check(
            app_state=bool(prepared.app_delta), user_state=bool(prepared.user_delta)
        )
        params = _key_params(key) | {"eid": prepared.event.id, "ttl": self._expiry.ttl_micros}

        async def body(transaction: Transaction) -> AppendResult | None:
            rows = await transaction.query(sql, params)
            if not rows or not rows[0][-1]:  # no such session, or expired (idle TTL)
                raise SessionNotFoundError(f"Session {session.id!r} does not exist.")
            revision, incarnation, state, mtime, token, until, now, found, app, user, _ = rows[0]
            if prepared.incarnation not in (None, incarnation):
                raise StaleSessionError(RECREATED_SESSION_MESSAGE)
            if found:
                stored = await _stored_event(transaction, key, found[0])
                return AppendResult(stored, found[0], seconds(mtime), already_stored=True)
            _check_claim(session.id, prepared.fence, token, until, now)
            if revision != prepared.expected_revision:
                raise StaleSessionError()
            sequence = revision + 1
            held = None if prepared.release else until
            expire_at = self._expiry.expire_at(now, held)
            transaction.write(
                *_append_writes(key, prepared, sequence, (state, app, user), expire_at)
            )
            return None

        result, stamp = await self._link.transact("append_event", body)
        if result is not None:
            return result
        assert stamp is not None
        sequence = prepared.expected_revision + 1
        return AppendResult(prepared.event, sequence, seconds(stamp), released=prepared.release)

    async def _claim_and_read(
        self,
        key: SessionKey,
        lease_seconds: float,
        mark: str | None,
        token: int,
        read: ReadPlan,
        message: PreparedAppend | None,
    ) -> tuple[ClaimAttempt, SessionTail, AppendResult | None] | None:
        """Claim, read and commit the message in one transaction (two round trips).

        The query reads the claim, the session and the message's id; the commit takes the
        claim and stores the message.
        """
        check_value("event", "" if message is None else message.event_json)  # before sending
        config = read.config
        since = read.since if read.identity is not None else None
        params, sql = _read_params(key, config, since, turn=True)
        params["eid"] = "" if message is None else message.event.id
        params["ttl"] = self._expiry.ttl_micros

        async def body(transaction: Transaction) -> _Started | None:
            read_rows = _split(await transaction.query(sql, params))
            if read_rows is None:
                raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
            row, newest_first = read_rows
            until, open_invocation, now, found, expire_at = row[8:13]
            if until is not None:  # held, or left unreleased: the usual steps
                return None
            if since is not None and row[3] != read.identity:  # another incarnation: all
                whole, whole_sql = _read_params(key, None, None, turn=False)
                whole["ttl"] = params["ttl"]
                again = _split(await transaction.query(whole_sql, whole))
                assert again is not None
                newest_first = again[1]
            end = now + round(lease_seconds * 1_000_000)
            columns: dict[str, Any] = {
                "claim_token": token,
                "claim_until": Timestamp(end),
                "claim_took_over": False,
                "expire_at": lease_expiry(expire_at, end),
            }
            if mark is not None:
                columns |= {"open_invocation": mark, "open_since": COMMIT_TIMESTAMP}
                open_invocation = mark
            names = (*_SESSION_ROW, *columns)
            transaction.write(Write("update", "adk_sessions", names, (*key, *columns.values())))
            stored: AppendResult | None = None
            if message is not None and found:
                event = await _stored_event(transaction, key, found[0])
                stored = AppendResult(event, found[0], seconds(row[5]), already_stored=True)
            elif message is not None:
                held = None if message.release else end
                stored_at = self._expiry.expire_at(now, held)
                states = (row[4], row[6], row[7])
                transaction.write(*_append_writes(key, message, row[2] + 1, states, stored_at))
            attempt = ClaimAttempt(token, open_invocation=open_invocation)
            return _Started(row, newest_first, attempt, stored)

        started, stamp = await self._link.transact("starting a turn", body)
        if started is None:
            return None
        row, newest_first = started.row, started.events
        tail = SessionTail(
            session_of(key[0], row, events_of(key[2], newest_first)),
            row[3],
            sum(len(payload) for _, payload in newest_first),
        )
        result = started.stored
        if message is not None and result is None:
            assert stamp is not None
            result = AppendResult(
                message.event, row[2] + 1, seconds(stamp), released=message.release
            )
        return started.attempt, tail, result

    # -- fork --------------------------------------------------------------------------------

    async def _fork_session(self, key: SessionKey, prepared: PreparedFork) -> None:
        target = (key[0], key[1], prepared.session_id)

        async def body(transaction: Transaction) -> None:
            params = _key_params(key) | {"target": prepared.session_id, "upto": prepared.sequence}
            rows = await transaction.query(_FORK_CHECK, params | {"ttl": self._expiry.ttl_micros})
            if (
                not rows
                or not rows[0][3]
                or prepared.incarnation not in (None, rows[0][0])
                or rows[0][1] < prepared.sequence
            ):
                raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
            if rows[0][2]:  # the target exists (expired or not: the caller chose its id)
                raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")
            check_commit(_event_rows(rows[0][4]), "fork_session", _FORK_HINT)
            copied = await transaction.query(
                "SELECT e.sequence, e.event_id, e.invocation_id, e.timestamp, e.payload "
                "FROM adk_events e WHERE e.app_name = @app AND e.user_id = @user "
                "AND e.session_id = @sid AND e.sequence <= @upto ORDER BY e.sequence",
                params,
            )
            creation = prepared.creation_state
            transaction.write(
                _new_session(
                    "insert",
                    target,
                    uuid.uuid4().hex,
                    prepared.sequence,
                    (prepared.session_state, creation),
                    self._expiry.expire_at(rows[0][5]),
                ),
                *(
                    Write(
                        "insert",
                        "adk_events",
                        _EVENT_COLUMNS,
                        (*target, *event[:4], Blob(event[4])),
                    )
                    for event in copied
                ),
            )

        await self._link.transact("fork_session", body)

    # -- claims ------------------------------------------------------------------------------

    async def _try_claim(
        self,
        key: SessionKey,
        lease_seconds: float,
        mark: str | None = None,
        *,
        token: int | None = None,
    ) -> ClaimAttempt:
        ttl = self._expiry.ttl_micros
        return await _claims.try_claim(self._link, key, lease_seconds, mark, token, ttl)

    async def _extend_claim(
        self, key: SessionKey, token: int, lease_seconds: float, mark: str | None = None
    ) -> bool:
        ttl = self._expiry.ttl_micros
        return await _claims.extend(self._link, key, token, lease_seconds, mark, ttl)

    async def _release_claim(self, key: SessionKey, token: int, finished: bool = False) -> None:
        await _claims.release(self._link, key, token, finished, self._expiry.ttl_micros)

    async def _open_invocations(
        self, app_name: str, user_id: str | None, session_id: str | None
    ) -> list[OpenInvocation]:
        ttl = self._expiry.ttl_micros
        return await _claims.open_invocations(self._link, app_name, user_id, session_id, ttl)


@dataclasses.dataclass(frozen=True)
class _Started:
    """What a turn's start read (the session row) and did."""

    row: list[Any]
    events: list[tuple[int, str]]
    attempt: ClaimAttempt
    stored: AppendResult | None


def _split(rows: list[list[Any]]) -> tuple[list[Any], list[tuple[int, str]]] | None:
    """A :func:`._queries.session_read` result: the session's row, its events newest first."""
    if not rows or rows[0][0] != 0:
        return None
    return rows[0][1:-2], [(row[-2], row[-1]) for row in rows[1:]]


async def _stored_event(transaction: Transaction, key: SessionKey, sequence: int) -> Event:
    """The stored event ``sequence`` of the session (a retried append's answer)."""
    params = _key_params(key) | {"sequence": sequence}
    rows = await transaction.query(_queries.STORED_EVENT, params)
    return event_from_stored(rows[0][0], key[2], sequence - 1)


def _read_params(
    key: SessionKey, config: GetSessionConfig | None, since: int | None, *, turn: bool
) -> tuple[dict[str, Param], str]:
    """The parameters and SQL of a session read (:func:`._queries.session_read`)."""
    after = None if config is None else config.after_timestamp
    count = None if config is None else config.num_recent_events
    params = _key_params(key)
    if since is not None:
        params["since"] = since
    if after is not None:
        params["after"] = float(after)
    if count is not None:
        params["count"] = min(count, MAX_RECENT_EVENTS)
    sql = _queries.session_read(
        since=since is not None, after=after is not None, limited=count is not None, turn=turn
    )
    return params, sql


def _append_writes(
    key: SessionKey,
    prepared: PreparedAppend,
    sequence: int,
    states: tuple[str, str | None, str | None],
    expire_at: Timestamp | None,
) -> list[Write]:
    """The mutations of an append whose checks passed.

    ``states``: the session's, the app's and the user's state as read (the last two None when
    the append does not change them); ``expire_at``: the session's new one (:mod:`._expiry`).
    """
    event = prepared.event
    state, app, user = states
    columns = [*_SESSION_ROW, "revision", "update_time", "expire_at"]
    values: list[Any] = [*key, sequence, COMMIT_TIMESTAMP, expire_at]
    if prepared.session_delta:
        columns.append("state")
        values.append(_merged(state, prepared.session_delta))
    if prepared.release:  # the turn's last event: its claim ends with it
        columns += ["claim_until", "open_invocation", "open_since"]
        values += [None, None, None]
    event_values = (*key, sequence, event.id, event.invocation_id, event.timestamp)
    return [
        Write("update", "adk_sessions", tuple(columns), tuple(values)),
        Write("insert", "adk_events", _EVENT_COLUMNS, (*event_values, Blob(prepared.event_json))),
        *_scope_writes(key[0], key[1], (app, prepared.app_delta), (user, prepared.user_delta)),
    ]


def _check_claim(
    session_id: str, fence: int | None, token: int, until: int | None, now: int
) -> None:
    """Refuse an append under a lost claim, or without one while another lease runs."""
    if fence is not None:
        if token != fence:
            raise ClaimLostError(session_id)
        return
    if until is not None and until > now:
        raise SessionBusyError(session_id, (until - now) / 1_000_000)
