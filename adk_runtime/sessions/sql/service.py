"""DatabaseSessionService: the session contract on SQLite and PostgreSQL (SQLAlchemy async).

Storage is the schema of :mod:`.tables`, owned by Alembic. Appends commit in one transaction
(:mod:`._append`); reads run without a transaction round trip and stay consistent by reading
events only up to the revision of the session row they read. Nothing holds a transaction
while control is back in agent code.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy.engine import Row
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from adk_runtime import codec
from adk_runtime.errors import AlreadyExistsError, InputValidationError
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
from adk_runtime.sessions.sql import _append
from adk_runtime.sessions.sql import _statements as sql
from adk_runtime.sessions.state import merge_state
from adk_runtime.sql.engine import Database
from adk_runtime.sql.handle import SqlHandle

__all__ = ["DatabaseSessionService"]


def _now() -> datetime:
    return datetime.now(timezone.utc)


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
        **engine_kwargs: Any,
    ) -> None:
        """Create the service; the schema is checked (or migrated) on first use."""
        self._handle = SqlHandle(db_url, db_engine, auto_migrate, engine_kwargs)

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> DatabaseSessionService:
        """Build the service for a SQLite or PostgreSQL URL (arguments as for the class)."""
        return cls(url, **kwargs)

    async def prepare(self) -> None:
        """Check the schema now (and migrate it if ``auto_migrate``) instead of on first use.

        Raises:
            ConfigurationError: The schema is missing or behind and ``auto_migrate`` is off.
            BackendUnavailableError: The database cannot be reached.
        """
        await self._open()

    async def _open(self) -> Database:
        return await self._handle.open()

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
        session_id = prepared.session_id
        encoded = prepared.session_state
        db = await self._open()
        params = {"app": app_name, "user": user_id, "sid": session_id, "now": _now()}
        async with db.write() as connection:
            row = (
                await connection.execute(
                    sql.insert_session(db.dialect), {**params, "state": encoded}
                )
            ).first()
            if row is None:
                raise AlreadyExistsError(f"Session {session_id!r} already exists.")
            scopes = [
                await _scope(connection, db.dialect, params, delta, user=user)
                for user, delta in ((False, prepared.app_state), (True, prepared.user_state))
            ]
        return Session(
            id=session_id,
            app_name=app_name,
            user_id=user_id,
            state=merge_state(codec.decode_state(encoded), *map(codec.decode_state, scopes)),
            last_update_time=row.update_time.timestamp(),
            revision=0,
        )

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
        db = await self._open()
        params: dict[str, Any] = {"app": app_name, "user": user_id, "sid": session_id}
        async with db.autocommit() as connection:
            row = (await connection.execute(sql.GET_SESSION, params)).first()
            if row is None:
                return None
            payloads = await _event_payloads(connection, params, row.revision, config)
        session = _session(row)
        session.events = [event_from_json(payload) for payload in payloads]
        return session

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
        params: dict[str, Any] = {"app": app_name, "user": user_id, "limit": -1}
        if page_token is not None:
            params.update(_position_from_token(page_token))
        if page_size is not None:
            params["limit"] = page_size + 1
        query = sql.LIST[(user_id is not None, page_token is not None)]
        if page_size is None:
            query = query.limit(None)
        db = await self._open()
        async with db.autocommit() as connection:
            rows = (await connection.execute(query, params)).all()
        token = None
        if page_size is not None and len(rows) > page_size:
            rows = rows[:page_size]
            last = rows[-1]
            token = encode_page_token([last.update_time.isoformat(), last.user_id, last.id])
        return ListSessionsResponse(sessions=[_session(row) for row in rows], next_page_token=token)

    async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
        """Delete the session and its events; see :meth:`BaseSessionService.delete_session`."""
        validate_session_key(app_name, user_id, session_id)
        db = await self._open()
        params = {"app": app_name, "user": user_id, "sid": session_id}
        async with db.write() as connection:
            await connection.execute(sql.DELETE_EVENTS, params)
            await connection.execute(sql.DELETE_SESSION, params)

    async def _append_event(self, session: Session, prepared: PreparedAppend) -> AppendResult:
        db = await self._open()
        key = (session.app_name, session.user_id, session.id)
        return await _append.append(db, key, prepared, _now())

    async def close(self) -> None:
        """Dispose the engine if this service created it."""
        await self._handle.close()


async def _scope(
    connection: AsyncConnection,
    dialect: str,
    params: dict[str, Any],
    delta: dict[str, Any],
    *,
    user: bool,
) -> dict[str, Any]:
    if delta:
        statement = sql.upsert_scope(dialect, user=user)
        state = await connection.scalar(statement, {**params, "delta": delta})
    else:
        state = await connection.scalar(sql.SCOPE_STATE[user], params)
    return dict(state or {})


async def _event_payloads(
    connection: AsyncConnection,
    params: dict[str, Any],
    revision: int,
    config: GetSessionConfig | None,
) -> list[str]:
    recent = config is not None and config.num_recent_events is not None
    after = config is not None and config.after_timestamp is not None
    if recent and config is not None and config.num_recent_events == 0:
        return []
    query = sql.EVENTS[(recent, after)]
    values = {**params, "rev": revision}
    if config is not None:
        values.update(k=config.num_recent_events, after=config.after_timestamp)
    payloads = list((await connection.scalars(query, values)).all())
    if recent:
        payloads.reverse()
    return payloads


def _session(row: Row[Any]) -> Session:
    return Session(
        id=row.id,
        app_name=row.app_name,
        user_id=row.user_id,
        state=merge_state(
            codec.decode_state(row.state),
            codec.decode_state(row.app_state or {}),
            codec.decode_state(row.user_state or {}),
        ),
        last_update_time=row.update_time.timestamp(),
        revision=row.revision,
    )


def _position_from_token(token: str) -> dict[str, Any]:
    position = decode_page_token(token)
    try:
        time_text, after_user, after_id = position
        after_time = datetime.fromisoformat(time_text)
        if not isinstance(after_user, str) or not isinstance(after_id, str):
            raise TypeError("ids")
    except (TypeError, ValueError):
        raise InputValidationError("page_token is not a token this service issued.") from None
    return {"after_time": after_time, "after_user": after_user, "after_id": after_id}
