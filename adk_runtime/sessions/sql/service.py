"""DatabaseSessionService: the session contract on SQLite and PostgreSQL (SQLAlchemy async).

Storage is the schema of :mod:`.tables`, owned by Alembic. Appends commit in one transaction
(:mod:`._append`); reads run without a transaction round trip and stay consistent by reading
events only up to the revision of the session row they read. Nothing holds a transaction
while control is back in agent code.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from datetime import datetime, timezone
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine

from adk_runtime import codec
from adk_runtime.errors import AlreadyExistsError, ConfigurationError, SessionNotFoundError
from adk_runtime.events import Event, event_from_stored
from adk_runtime.sessions._cache import SessionCache
from adk_runtime.sessions._prepare import ReadPlan
from adk_runtime.sessions.base import (
    AppendResult,
    BaseSessionService,
    ClaimAttempt,
    GetSessionConfig,
    ListQuery,
    PreparedAppend,
    PreparedCreate,
    SessionTail,
)
from adk_runtime.sessions.claims import ClaimedStart, new_claim_token
from adk_runtime.sessions.fork import PreparedFork
from adk_runtime.sessions.invocations import OpenInvocation, status_of
from adk_runtime.sessions.retention import IdleQuery, IdleSession
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.sql import _append, _create, _fork, _start
from adk_runtime.sessions.sql import _driver_statements as driver_statements
from adk_runtime.sessions.sql import _statements as statements
from adk_runtime.sessions.sql._ttl import Expiry
from adk_runtime.sessions.state import merge_state
from adk_runtime.sql.engine import Database
from adk_runtime.sql.handle import SqlHandle
from adk_runtime.sql.pool import parse_count, take_query_option
from adk_runtime.sql.url import SESSION_OPTIONS, normalize_url

__all__ = ["DatabaseSessionService"]

_FirstRow = Callable[[str, dict[str, Any]], Awaitable[tuple[Any, ...] | None]]
"""Runs a named claim statement, returns its first row (see ``_claim_rows``)."""


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _datetime(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


class DatabaseSessionService(BaseSessionService):
    """Sessions in SQLite or PostgreSQL, durable and transactional.

    Args:
        db_url: ``sqlite+aiosqlite:///path.db`` (or ``sqlite:///…``),
            ``postgresql+asyncpg://user@host/db`` (or ``postgresql://…``).
        db_engine: An async engine to use instead of ``db_url`` (not disposed by
            :meth:`close`). Build it with :func:`adk_runtime.sql.create_engine`, or pass it
            before it opens its first connection: the SQLite settings are installed per
            connection.
        auto_migrate: Upgrade the schema on first use. Defaults to True for SQLite and
            False for PostgreSQL (run ``adk-runtime db upgrade --url URL`` there).
        cache_bytes: Keep recently read conversations (up to this many bytes of event
            JSON) so a full ``get_session`` fetches only the events after the cached
            revision (see :mod:`adk_runtime.sessions._cache`). None (the default): no cache.
        ttl_seconds: Expire a session not written for this many seconds: it is gone for
            readers at once and removed in the background, a batch at a time (see
            :mod:`adk_runtime.sessions.sql._ttl`). None (the default): sessions never expire.
        **engine_kwargs: Passed to :func:`sqlalchemy.ext.asyncio.create_async_engine`.

    Raises:
        ConfigurationError: The URL or engine is not supported (e.g. a synchronous driver).
    """

    def __init__(
        self,
        db_url: str | None = None,
        *,
        db_engine: AsyncEngine | None = None,
        auto_migrate: bool | None = None,
        cache_bytes: int | None = None,
        ttl_seconds: float | None = None,
        **engine_kwargs: Any,
    ) -> None:
        """Create the service; the schema is checked (or migrated) on first use."""
        if db_url is not None:
            db_url, cache_bytes, ttl_seconds = _url_options(db_url, cache_bytes, ttl_seconds)
        self._expiry = Expiry(ttl_seconds)
        self._handle = SqlHandle(db_url, db_engine, auto_migrate, engine_kwargs, SESSION_OPTIONS)
        if cache_bytes is not None:
            self._session_cache = SessionCache(cache_bytes)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> DatabaseSessionService:
        """Build the service for a SQLite or PostgreSQL URL (arguments as for the class).

        ``cache_bytes`` and ``ttl_seconds`` may also be given as query parameters
        (``…/app.db?cache_bytes=67108864&ttl_seconds=2592000``), like the pool knobs of
        :mod:`adk_runtime.sql.pool`; keyword arguments win. Any other name is refused.
        """
        return cls(url, **kwargs)

    @property
    def db_system_name(self) -> str:
        """``sqlite`` or ``postgresql`` (the engine's dialect, as OpenTelemetry names it)."""
        return self._handle.dialect

    async def prepare(self) -> None:
        """Check the schema now (and migrate it if ``auto_migrate``) instead of on first use.

        Raises:
            ConfigurationError: The schema is missing or behind and ``auto_migrate`` is off.
            BackendUnavailableError: The database cannot be reached.
        """
        await self._open()

    async def prepare_tables(self) -> None:
        """google-adk's name of :meth:`prepare`: make the schema ready at start-up.

        Safe to call more than once, and from many tasks at once.
        """
        await self.prepare()

    async def _open(self) -> Database:
        return await self._handle.open()

    async def _create_session(
        self, app_name: str, user_id: str, prepared: PreparedCreate
    ) -> Session:
        db = await self._open()
        if self._expiry.ttl is not None:  # an expired session of that id is gone: delete it
            idle = IdleSession(user_id, prepared.session_id, 0.0)
            await self._delete_if_idle(app_name, idle, self._expiry.fresh_after().timestamp())
            self._expiry.maybe_sweep(self, app_name)
        created = await _create.create(db, (app_name, user_id), prepared, _now())
        if created is None:
            raise AlreadyExistsError(f"Session {prepared.session_id!r} already exists.")
        update_time, app_state, user_state = created
        session = Session(
            id=prepared.session_id,
            app_name=app_name,
            user_id=user_id,
            state=merge_state(
                codec.decode_state(prepared.session_state),
                codec.decode_state(app_state),
                codec.decode_state(user_state),
            ),
            last_update_time=update_time.timestamp(),
            revision=len(prepared.events),
        )
        session._incarnation = update_time.isoformat()  # = create_time for a new row
        return session

    async def _get_session(
        self, app_name: str, user_id: str, session_id: str, config: GetSessionConfig | None
    ) -> Session | None:
        params: dict[str, Any] = {"app": app_name, "user": user_id, "sid": session_id}
        window, window_params = _start.window_of(ReadPlan(config))
        row = await self._read_live(window, params | window_params)
        if row is None:
            return None
        session = _session(row)
        if window is not None:
            session.events = _decode(session_id, _payloads(row))
        return session

    async def _get_session_tail(
        self, app_name: str, user_id: str, session_id: str, after_revision: int | None
    ) -> SessionTail | None:
        params: dict[str, Any] = {"app": app_name, "user": user_id, "sid": session_id}
        read: _start.Window = (False, False)
        if after_revision is not None:
            read, params["since"] = "since", after_revision
        row = await self._read_live(read, params)
        if row is None:
            return None
        session = _session(row)
        payloads = _payloads(row)
        session.events = _decode(session_id, payloads)
        size = sum(len(payload) for payload in payloads)
        return SessionTail(session, session._incarnation or "", size)

    async def _read_live(
        self, read: _start.Window, params: dict[str, Any]
    ) -> Mapping[Any, Any] | None:
        """The session row a :data:`statements.GET` form (or ``"since"``) reads.

        None when it is missing or expired.

        On PostgreSQL the precompiled statement runs on the driver connection (the hottest
        read: SQLAlchemy's execution layer costs more than the statement, see
        :mod:`._driver_statements`); both forms give the same values.
        """
        db = await self._open()
        row: Mapping[Any, Any] | None
        if db.dialect == "postgresql":
            compiled = driver_statements.POSTGRESQL_READS[read]
            async with db.driver_connection() as connection:
                row = await connection.fetchrow(compiled.sql, *compiled.args(params))
        else:
            statement = statements.GET_SINCE if isinstance(read, str) else statements.GET[read]
            async with db.autocommit() as connection:
                found = (await connection.execute(statement, params)).first()
            row = None if found is None else found._mapping
        if row is None or not self._expiry.alive(row["update_time"], row["held"]):
            return None
        return row

    async def _list_sessions(self, query: ListQuery) -> list[Session]:
        params: dict[str, Any] = {"app": query.app_name, "user": query.user_id, "limit": -1}
        params["fresh"] = self._expiry.fresh_after()
        if query.after is not None:
            params["after_time"] = _datetime(query.after.update_time)
            params["after_user"] = query.after.user_id
            params["after_id"] = query.after.session_id
        statement = statements.LIST[(query.user_id is not None, query.after is not None)]
        if query.limit is None:
            statement = statement.limit(None)
        else:
            params["limit"] = query.limit
        db = await self._open()
        async with db.autocommit() as connection:
            rows = (await connection.execute(statement, params)).all()
        return [_session(row._mapping) for row in rows]  # expired sessions are left out

    async def _get_user_state(self, app_name: str, user_id: str) -> dict[str, Any]:
        db = await self._open()
        async with db.autocommit() as connection:
            state = await connection.scalar(
                statements.SCOPE_STATE[True], {"app": app_name, "user": user_id}
            )
        return codec.decode_state(state or {})

    async def _merge_scope_state(
        self, app_name: str, user_id: str | None, state: dict[str, Any]
    ) -> None:
        db = await self._open()
        statement = statements.upsert_scope(db.dialect, user=user_id is not None)
        params: dict[str, Any] = {"app": app_name, "now": _now(), "delta": state}
        if user_id is not None:
            params["user"] = user_id
        # One statement (an upsert merging the keys into the row), atomic by itself.
        async with db.writer(), db.autocommit() as connection:
            await connection.execute(statement, params)

    async def _stored_payloads(self, app_name: str, user_id: str, session_id: str) -> list[str]:
        db = await self._open()
        params = {"app": app_name, "user": user_id, "sid": session_id}
        async with db.autocommit() as connection:
            return list((await connection.scalars(statements.STORED_PAYLOADS, params)).all())

    async def _delete_session(self, app_name: str, user_id: str, session_id: str) -> None:
        db = await self._open()
        params = {"app": app_name, "user": user_id, "sid": session_id}
        # One statement, atomic by itself: the events go with the row (ON DELETE CASCADE).
        async with db.writer(), db.autocommit() as connection:
            await connection.execute(statements.DELETE_SESSION, params)

    async def _idle_sessions(self, query: IdleQuery) -> list[IdleSession]:
        params: dict[str, Any] = {"app": query.app_name, "user": query.user_id}
        params.update(limit=query.limit, before=_datetime(query.before))
        after = query.after
        if after is not None:
            params["after_time"] = _datetime(after.last_update_time)
            params["after_user"] = after.user_id
            params["after_id"] = after.session_id
        statement = statements.IDLE[(query.user_id is not None, after is not None)]
        db = await self._open()
        async with db.autocommit() as connection:
            rows = (await connection.execute(statement, params)).all()
        return [IdleSession(row.user_id, row.id, row.update_time.timestamp()) for row in rows]

    async def _delete_if_idle(self, app_name: str, idle: IdleSession, before: float) -> bool:
        params = {
            **_key_params((app_name, idle.user_id, idle.session_id)),
            "before": _datetime(before),
        }
        db = await self._open()
        # One statement (its own transaction): the events go with the row (ON DELETE CASCADE).
        async with db.writer(), db.autocommit() as connection:
            deleted = await connection.execute(statements.DELETE_IF_IDLE, params)
        return bool(deleted.rowcount)

    async def _append_event(self, session: Session, prepared: PreparedAppend) -> AppendResult:
        db = await self._open()
        key = (session.app_name, session.user_id, session.id)
        return await _append.append(db, key, prepared, _now(), self._expiry.fresh_after())

    async def _creation_state(
        self, key: tuple[str, str, str], incarnation: str | None
    ) -> dict[str, Any] | None:
        db = await self._open()
        async with db.autocommit() as connection:
            row = (await connection.execute(statements.CREATION_STATE, _key_params(key))).first()
        if row is None or incarnation not in (None, row.create_time.isoformat()):
            return None
        return None if row.creation_state is None else dict(row.creation_state)

    async def _fork_session(self, key: tuple[str, str, str], prepared: PreparedFork) -> None:
        db = await self._open()
        await _fork.fork(db, key, prepared, _now())

    async def _try_claim(
        self,
        key: tuple[str, str, str],
        lease_seconds: float,
        mark: str | None = None,
        *,
        token: int | None = None,
    ) -> ClaimAttempt:
        params = {**_key_params(key), "lease": lease_seconds, "mark": mark}
        new_token = new_claim_token() if token is None else token
        params.update(fresh=self._expiry.fresh_after(), new_token=new_token)
        async with self._claim_rows() as first:
            row = await first("CLAIM", params)
            if row is None:
                # Not released: free only if its holder's lease ran out, or if this token
                # holds it (a retry after a lost reply; a second statement, only when the
                # session was not cleanly released).
                row = await first("CLAIM_TAKE_OVER", params)
            if row is not None:
                return ClaimAttempt(int(row[0]), took_over=bool(row[2]), open_invocation=row[1])
            held = await first("CLAIM_HELD", params)
        if held is None:
            raise SessionNotFoundError(f"Session {key[2]!r} does not exist.")
        return ClaimAttempt(None, max(float(held[0] or 0.0), 0.0))

    async def _claim_and_read(
        self,
        key: tuple[str, str, str],
        lease_seconds: float,
        mark: str | None,
        token: int,
        read: ReadPlan,
        message: PreparedAppend | None,
    ) -> ClaimedStart | None:
        """One statement on PostgreSQL, one transaction on SQLite (:mod:`._start`)."""
        db = await self._open()
        claim: dict[str, Any] = {"lease": lease_seconds, "mark": mark, "new_token": token}
        claim["fresh"] = self._expiry.fresh_after()
        started = await _start.start(db, key, claim, read, message, _now(), self._expiry.alive)
        if started is None:
            return None
        session = _session(started.row)
        session.events = _decode(key[2], started.payloads)
        size = sum(map(len, started.payloads))
        tail = SessionTail(session, session._incarnation or "", size)
        return ClaimAttempt(token, open_invocation=started.open_invocation), tail, started.message

    async def _extend_claim(
        self, key: tuple[str, str, str], token: int, lease_seconds: float, mark: str | None = None
    ) -> bool:
        params = {**_key_params(key), "token": token, "lease": lease_seconds, "mark": mark}
        async with self._claim_rows() as first:
            found = await first("EXTEND_CLAIM" if mark is None else "EXTEND_AND_MARK", params)
        return found is not None

    async def _release_claim(
        self, key: tuple[str, str, str], token: int, finished: bool = False
    ) -> None:
        params = {**_key_params(key), "token": token}
        async with self._claim_rows() as first:
            await first("RELEASE_FINISHED" if finished else "RELEASE_CLAIM", params)

    @contextlib.asynccontextmanager
    async def _claim_rows(self) -> AsyncIterator[_FirstRow]:
        """One connection to run claim statements on, each its own transaction.

        Yields ``first(name, params)``: the first row (a tuple, or None) of the :mod:`._statements`
        claim statement ``name``. On PostgreSQL the statement runs precompiled on the driver
        connection (a claim and a release are in every turn: SQLAlchemy's execution layer
        costs more than they do, see :mod:`._driver_statements`); on SQLite through
        SQLAlchemy, in this process's turn to write.
        """
        db = await self._open()
        if db.dialect == "postgresql":
            async with db.driver_connection() as driver:

                async def on_driver(name: str, params: dict[str, Any]) -> tuple[Any, ...] | None:
                    compiled = driver_statements.POSTGRESQL_CLAIMS[name]
                    found = await driver.fetchrow(compiled.sql, *compiled.args(params))
                    return None if found is None else tuple(found)

                yield on_driver
            return
        async with db.writer(), db.autocommit() as connection:

            async def on_engine(name: str, params: dict[str, Any]) -> tuple[Any, ...] | None:
                statement = driver_statements.CLAIM_STATEMENTS[name]
                result = await connection.execute(statement, params)
                row = result.first() if result.returns_rows else None
                return None if row is None else tuple(row)

            yield on_engine

    async def _open_invocations(
        self, app_name: str, user_id: str | None, session_id: str | None
    ) -> list[OpenInvocation]:
        params: dict[str, Any] = {"app": app_name, "user": user_id, "sid": session_id}
        params["fresh"] = self._expiry.fresh_after()
        statement = statements.OPEN_INVOCATIONS[(user_id is not None, session_id is not None)]
        db = await self._open()
        async with db.autocommit() as connection:
            rows = (await connection.execute(statement, params)).all()
        return [
            OpenInvocation(
                app_name,
                row.user_id,
                row.id,
                row.open_invocation_id,
                float(row.open_since or 0.0),
                status_of(released=bool(row.released), held=bool(row.held)),
                max(float(row.held_for or 0.0), 0.0) if row.held else 0.0,
            )
            for row in rows
        ]

    async def close(self) -> None:
        """Stop background sweeps; dispose the engine if this service created it."""
        await self._expiry.close()
        await self._handle.close()


def _url_options(
    url: str, cache_bytes: int | None, ttl_seconds: float | None
) -> tuple[str, int | None, float | None]:
    """``url`` without the service's options, and the options (keyword arguments win)."""
    url, cache_text = take_query_option(normalize_url(url), "cache_bytes")
    if cache_text is not None and cache_bytes is None:
        cache_bytes = parse_count("cache_bytes", cache_text)
    url, ttl_text = take_query_option(url, "ttl_seconds")
    if ttl_text is not None and ttl_seconds is None:
        ttl_seconds = _parse_seconds(ttl_text)
    return url, cache_bytes, ttl_seconds


def _parse_seconds(raw: str) -> float:
    try:
        return float(raw)
    except ValueError:
        raise ConfigurationError(f"ttl_seconds={raw!r} is not a number of seconds.") from None


def _key_params(key: tuple[str, str, str]) -> dict[str, Any]:
    return {"app": key[0], "user": key[1], "sid": key[2]}


def _session(row: Mapping[Any, Any]) -> Session:
    session = Session(
        id=row["id"],
        app_name=row["app_name"],
        user_id=row["user_id"],
        state=merge_state(
            codec.decode_state(row["state"]),
            codec.decode_state(row["app_state"] or {}),
            codec.decode_state(row["user_state"] or {}),
        ),
        last_update_time=row["update_time"].timestamp(),
        revision=row["revision"],
    )
    session._incarnation = row["create_time"].isoformat()
    return session


def _payloads(row: Mapping[Any, Any]) -> list[str]:
    """The event payloads a read returned, oldest first (asyncpg gives NULL for none)."""
    payloads: list[str] | None = row["payloads"]
    return [] if payloads is None else payloads


def _decode(session_id: str, payloads: list[str]) -> list[Event]:
    return [event_from_stored(p, session_id, i) for i, p in enumerate(payloads)]
