"""The SQL statements of the session service, built once (compiled forms are cached).

Every statement takes named bind parameters: ``app``, ``user``, ``sid`` (the session key)
plus its own. Dialect differences stay in the column types and :func:`json_merge`, except
the upsert constructs, which SQLAlchemy spells per dialect (:data:`INSERTS`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from sqlalchemy import (
    BigInteger,
    BindParameter,
    ColumnElement,
    Double,
    Integer,
    String,
    and_,
    bindparam,
    case,
    delete,
    false,
    func,
    or_,
    select,
    true,
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.sql import Delete, Select, Update
from typing_extensions import Unpack

from adk_runtime.sessions.sql._ttl import alive
from adk_runtime.sessions.sql.tables import app_states, events, sessions, user_states
from adk_runtime.sql.types import DateTimeUTC, JSONDocument, epoch_now, json_merge, text_list

AnySelect = Select[Unpack[tuple[Any, ...]]]
"""A SELECT of any columns (SQLAlchemy's ``Select`` is generic over its column types)."""

APP: BindParameter[str] = bindparam("app")
USER: BindParameter[str] = bindparam("user")
SID: BindParameter[str] = bindparam("sid")
NOW = bindparam("now", type_=DateTimeUTC)

INSERTS: dict[str, Callable[..., Any]] = {
    "sqlite": sqlite.insert,
    "postgresql": postgresql.insert,
}
"""``insert`` constructs with ``on_conflict_do_*`` for each supported dialect."""

_SESSION_KEY = and_(sessions.c.app_name == APP, sessions.c.user_id == USER, sessions.c.id == SID)
_EVENT_KEY = and_(events.c.app_name == APP, events.c.user_id == USER, events.c.session_id == SID)
_APP_JOIN = app_states.c.app_name == sessions.c.app_name
_USER_JOIN = and_(
    user_states.c.app_name == sessions.c.app_name, user_states.c.user_id == sessions.c.user_id
)
_WITH_SCOPES = sessions.outerjoin(app_states, _APP_JOIN).outerjoin(user_states, _USER_JOIN)

SESSION_COLUMNS = (
    sessions.c.app_name,
    sessions.c.user_id,
    sessions.c.id,
    sessions.c.state,
    sessions.c.revision,
    sessions.c.create_time,
    sessions.c.update_time,
    app_states.c.state.label("app_state"),
    user_states.c.state.label("user_state"),
    (sessions.c.claim_until > epoch_now()).label("held"),
)


def events_list(
    *, recent: bool, after: bool, since: ColumnElement[int] | None = None
) -> Select[Any]:
    """The session's events as one list column, oldest first.

    All of them, or the last ``k`` (``recent``), those at or after ``after`` (``after``),
    those after ``since``.
    """
    query = select(events.c.payload, events.c.sequence).where(_EVENT_KEY)
    if since is not None:
        query = query.where(events.c.sequence > since)
    if after:
        query = query.where(events.c.timestamp >= bindparam("after"))
    if recent:
        query = query.order_by(events.c.sequence.desc()).limit(bindparam("k", type_=Integer))
    window = query.subquery("window")
    in_order = select(window).order_by(window.c.sequence).subquery("in_order")
    return select(text_list(in_order.c.payload, in_order.c.sequence))


def session_read(payloads: ColumnElement[Any] | None, *extra: ColumnElement[Any]) -> Select[Any]:
    """The session row, its app and user state, ``payloads`` (if any), ``extra`` columns."""
    columns: list[ColumnElement[Any]] = [*SESSION_COLUMNS]
    if payloads is not None:
        columns.append(payloads.label("payloads"))
    return select(*columns, *extra).select_from(_WITH_SCOPES).where(_SESSION_KEY)


def _get(events_query: Select[Any] | None) -> Select[Any]:
    return session_read(None if events_query is None else events_query.scalar_subquery())


GET: dict[tuple[bool, bool] | None, Select[Any]] = {
    None: _get(None),
    **{
        (recent, after): _get(events_list(recent=recent, after=after))
        for recent in (False, True)
        for after in (False, True)
    },
}
"""The session row, its app and user state and its events in one statement (one snapshot).

Keyed by (last ``k`` only, ``timestamp >= after``), or None for no events; the events come
back oldest first in the ``payloads`` column."""

GET_SINCE: Select[Any] = _get(
    events_list(recent=False, after=False, since=bindparam("since", type_=Integer))
)
"""Like :data:`GET`, with only the events after sequence ``since`` (the session cache)."""


def _list(*, by_user: bool, keyset: bool) -> AnySelect:
    query = select(*SESSION_COLUMNS).select_from(_WITH_SCOPES)
    query = query.where(sessions.c.app_name == APP, alive(bindparam("fresh", type_=DateTimeUTC)))
    if by_user:
        query = query.where(sessions.c.user_id == USER)
    position = (sessions.c.update_time, sessions.c.user_id, sessions.c.id)
    if keyset:
        after = (
            bindparam("after_time", type_=DateTimeUTC),
            bindparam("after_user", type_=String),
            bindparam("after_id", type_=String),
        )
        query = query.where(tuple_(*position) < tuple_(*after))
    order = [column.desc() for column in position]
    return query.order_by(*order).limit(bindparam("limit", type_=Integer))


LIST: dict[tuple[bool, bool], AnySelect] = {
    (by_user, keyset): _list(by_user=by_user, keyset=keyset)
    for by_user in (False, True)
    for keyset in (False, True)
}
"""Sessions not expired (``fresh``, see ``_ttl.py``), most recently updated first (ties: user
id, then id, descending), keyed by (one user only, after a page token). The keyset is a
row-value comparison an index serves."""

STORED_PAYLOADS: Select[Any] = (
    select(events.c.payload).where(_EVENT_KEY).order_by(events.c.sequence)
)
"""Every stored event of a session as text, oldest first (exports of unreadable rows)."""

CREATION_STATE: AnySelect = select(sessions.c.create_time, sessions.c.creation_state).where(
    _SESSION_KEY
)
"""A session's creation state and incarnation (fork, rewind and export only; NULL: unknown)."""

DELETE_SESSION: Delete = delete(sessions).where(_SESSION_KEY)
"""Delete a session row; its events go with it (``ON DELETE CASCADE``)."""


@functools.lru_cache(maxsize=4)
def insert_session(dialect: str) -> Any:
    """``INSERT`` a new session row; returns nothing if the key already exists.

    Its revision is the ``revision`` parameter (0 when not given; an import's event count).
    """
    stmt = INSERTS[dialect](sessions).values(
        app_name=APP,
        user_id=USER,
        id=SID,
        state=bindparam("state", type_=JSONDocument),
        creation_state=bindparam("creation", type_=JSONDocument),
        revision=bindparam("revision", 0, type_=Integer, required=False),
        create_time=NOW,
        update_time=NOW,
    )
    return stmt.on_conflict_do_nothing().returning(sessions.c.update_time)


@functools.lru_cache(maxsize=8)
def upsert_scope(dialect: str, *, user: bool) -> Any:
    """Merge ``delta`` into the app (``user=False``) or user state, creating the row."""
    table = user_states if user else app_states
    values: dict[str, Any] = {
        "app_name": APP,
        "state": bindparam("delta", type_=JSONDocument),
        "update_time": NOW,
    }
    keys = ["app_name"]
    if user:
        values["user_id"] = USER
        keys.append("user_id")
    stmt = INSERTS[dialect](table).values(**values)
    return stmt.on_conflict_do_update(
        index_elements=keys,
        set_={
            "state": json_merge(table.c.state, stmt.excluded.state),
            "update_time": stmt.excluded.update_time,
        },
    ).returning(table.c.state)


SCOPE_STATE: dict[bool, Select[Any]] = {
    False: select(app_states.c.state).where(app_states.c.app_name == APP),
    True: select(user_states.c.state).where(
        user_states.c.app_name == APP, user_states.c.user_id == USER
    ),
}
"""The app (False) or user (True) state row."""


_LEASE = bindparam("lease", type_=Double)
_TOKEN = bindparam("token", type_=BigInteger)
_FREE = or_(sessions.c.claim_until.is_(None), sessions.c.claim_until <= epoch_now())


_MARK = bindparam("mark", type_=String)
_FRESH = alive(bindparam("fresh", type_=DateTimeUTC))
"""Not expired (``fresh``: the TTL's bound, or 1970 without a TTL; see ``_ttl.py``)."""
_OPEN_ID = sessions.c.open_invocation_id


_NEW_TOKEN = bindparam("new_token", type_=BigInteger)
_RETRY = sessions.c.claim_token == _NEW_TOKEN


def _claim(free: Any, open_id: Any, open_since: Any, took_over: Any) -> Update:
    return (
        update(sessions)
        .where(_SESSION_KEY, free, _FRESH)
        .values(
            claim_token=_NEW_TOKEN,
            claim_until=epoch_now() + _LEASE,
            claim_took_over=took_over,
            open_invocation_id=open_id,
            open_since=open_since,
        )
        .returning(sessions.c.claim_token, _OPEN_ID, sessions.c.claim_took_over)
    )


def claim_released() -> Update:
    """:data:`CLAIM`, to add conditions and values to (a turn's start in one statement)."""
    return _claim(
        sessions.c.claim_until.is_(None),
        func.coalesce(_MARK, _OPEN_ID),
        case((_MARK.is_(None), sessions.c.open_since), else_=epoch_now()),
        false(),
    )


CLAIM: Update = claim_released()
"""Claim a session whose last claim was released (or never claimed) with token ``new_token``:
the token, the open invocation (``mark`` replaces it when given) and whether it took over
(false), or no row."""

CLAIM_TAKE_OVER: Update = _claim(
    or_(sessions.c.claim_until <= epoch_now(), _RETRY),
    func.coalesce(_OPEN_ID, _MARK),
    case((_OPEN_ID.is_(None) & _MARK.is_not(None), epoch_now()), else_=sessions.c.open_since),
    case((_RETRY, func.coalesce(sessions.c.claim_took_over, false())), else_=true()),
)
"""Claim a session whose holder's lease ran out unreleased (it crashed or stalled); the dead
holder's open invocation stays (``mark`` is recorded only when none is open). When the held
claim's token already is ``new_token``, this is a retry of that acquisition (its reply was
lost): its lease restarts and it answers as the first attempt did (the open invocation it left
and its ``claim_took_over``), never "held"."""

CLAIM_HELD: Select[Any] = select((sessions.c.claim_until - epoch_now()).label("held_for")).where(
    _SESSION_KEY, _FRESH
)
"""How long the current claim's lease still runs (no row: the session does not exist)."""


def _extend(**marked: Any) -> Update:
    return (
        update(sessions)
        .where(_SESSION_KEY, sessions.c.claim_token == _TOKEN)
        .values(claim_until=epoch_now() + _LEASE, **marked)
        .returning(sessions.c.claim_token)
    )


EXTEND_CLAIM: Update = _extend()
"""Restart claim ``token``'s lease; no row when it is no longer the latest claim."""

EXTEND_AND_MARK: Update = _extend(open_invocation_id=_MARK, open_since=epoch_now())
""":data:`EXTEND_CLAIM` that also records ``mark`` as the open invocation (started now)."""


def _release(**cleared: Any) -> Update:
    return (
        update(sessions)
        .where(_SESSION_KEY, sessions.c.claim_token == _TOKEN)
        .values(claim_until=None, **cleared)
    )


RELEASE_CLAIM: Update = _release()
"""End claim ``token``'s lease now (nothing when another claim is the latest)."""

RELEASE_FINISHED: Update = _release(open_invocation_id=None, open_since=None)
""":data:`RELEASE_CLAIM` after a turn that ended normally: its open invocation is cleared."""


def _open(*, by_user: bool, by_session: bool) -> AnySelect:
    query = select(
        sessions.c.user_id,
        sessions.c.id,
        _OPEN_ID,
        sessions.c.open_since,
        sessions.c.claim_until.is_(None).label("released"),
        (sessions.c.claim_until > epoch_now()).label("held"),
        (sessions.c.claim_until - epoch_now()).label("held_for"),
    ).where(sessions.c.app_name == APP, _OPEN_ID.is_not(None), _FRESH)
    if by_user:
        query = query.where(sessions.c.user_id == USER)
    if by_session:
        query = query.where(sessions.c.id == SID)
    return query


OPEN_INVOCATIONS: dict[tuple[bool, bool], AnySelect] = {
    (by_user, by_session): _open(by_user=by_user, by_session=by_session)
    for by_user, by_session in ((False, False), (True, False), (True, True))
}
"""The sessions with an open invocation (the partial index holds only those), keyed by (one
user only, one session only)."""


# --- retention ---------------------------------------------------------------------------

_BEFORE = bindparam("before", type_=DateTimeUTC)


def _idle(*, by_user: bool, keyset: bool) -> AnySelect:
    position = (sessions.c.update_time, sessions.c.user_id, sessions.c.id)
    query = select(*position).where(sessions.c.app_name == APP, sessions.c.update_time < _BEFORE)
    if by_user:
        query = query.where(sessions.c.user_id == USER)
    if keyset:
        after = (
            bindparam("after_time", type_=DateTimeUTC),
            bindparam("after_user", type_=String),
            bindparam("after_id", type_=String),
        )
        query = query.where(tuple_(*position) > tuple_(*after))
    return query.order_by(*position).limit(bindparam("limit", type_=Integer))


IDLE: dict[tuple[bool, bool], AnySelect] = {
    (by_user, keyset): _idle(by_user=by_user, keyset=keyset)
    for by_user in (False, True)
    for keyset in (False, True)
}
"""Sessions last written before ``before``, oldest first (ties: user id, then id), keyed by
(one user only, after a position): the listing indexes serve it, read in ascending order."""

DELETE_IF_IDLE: Delete = delete(sessions).where(
    _SESSION_KEY, sessions.c.update_time < _BEFORE, _FREE
)
"""Delete a session still idle (last written before ``before``) that no turn holds."""
