"""The statements run on the driver connection, built from the table definitions.

:mod:`._append` (every append), :mod:`._create` (a PostgreSQL create) and the session
service's reads on PostgreSQL (a ``get_session``) run them on the driver connection
(asyncpg, or the aiosqlite worker thread's ``sqlite3`` connection):
SQLAlchemy's per-execution overhead is larger than these statements, so it only builds and
compiles them here, once per dialect, at import. Built from the
:mod:`.tables` definitions, they name only columns the model declares, and the model is
checked against the migrations by the drift test (``tests/sql/test_migrations.py``);
``tests/sql/test_statements_match_schema.py`` also prepares each compiled statement against
a migrated database.

Parameters, by name: ``app``, ``user``, ``sid`` (the session), ``now`` (the write time),
``expected`` (the revision the writer read), ``fresh`` (sessions last written before it
have expired: the TTL's bound, or 1970), ``ctime`` (the session's create time the writer
saw, or NULL), ``fence`` (the writer's claim token, or NULL), ``release`` (the append
also releases claim ``fence``: a turn's last event), ``eid``, ``inv``, ``ts``,
``payload`` (the event), ``sdelta``, ``adelta``, ``udelta`` (JSON text of the session, app
and user state deltas, or NULL), ``seq`` (SQLite: the new revision, for the event row),
``state`` (a new session's state, JSON text), ``creation`` (its creation state, JSON text,
or NULL: unknown).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from sqlalchemy import (
    BigInteger,
    BindParameter,
    Boolean,
    ColumnElement,
    Double,
    Integer,
    String,
    Table,
    Text,
    and_,
    bindparam,
    case,
    exists,
    func,
    insert,
    literal_column,
    null,
    or_,
    select,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql.asyncpg import PGDialect_asyncpg
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement, Select, Update
from sqlalchemy.sql.compiler import SQLCompiler

from adk_runtime.sessions.sql import _statements
from adk_runtime.sessions.sql._ttl import alive
from adk_runtime.sessions.sql.tables import app_states, events, sessions, user_states
from adk_runtime.sql.types import DateTimeUTC, JSONDocument, epoch_now, json_merge

__all__ = [
    "CLAIM_STATEMENTS",
    "POSTGRESQL",
    "POSTGRESQL_CLAIMS",
    "POSTGRESQL_READS",
    "POSTGRESQL_STARTS",
    "SQLITE",
    "Compiled",
    "Window",
]

_ASYNCPG: Dialect = PGDialect_asyncpg()  # type: ignore[no-untyped-call]  # untyped in SQLAlchemy

_APP = bindparam("app", type_=String)
_USER = bindparam("user", type_=String)
_SID = bindparam("sid", type_=String)
_NOW = bindparam("now", type_=DateTimeUTC)
_CTIME = bindparam("ctime", type_=DateTimeUTC)
_FENCE = bindparam("fence", type_=BigInteger)
_RELEASE = bindparam("release", type_=Boolean)
_EID = bindparam("eid", type_=String)
_SDELTA = bindparam("sdelta", type_=JSONDocument)
_ADELTA = bindparam("adelta", type_=JSONDocument)
_UDELTA = bindparam("udelta", type_=JSONDocument)
_EVENT_VALUES = {
    "app_name": _APP,
    "user_id": _USER,
    "session_id": _SID,
    "id": _EID,
    "invocation_id": bindparam("inv", type_=String),
    "timestamp": bindparam("ts", type_=Double),
    "payload": bindparam("payload", type_=Text),
}


@dataclasses.dataclass(frozen=True)
class Compiled:
    """One compiled statement: its SQL and (positional drivers) its parameters in order."""

    sql: str
    names: tuple[str, ...] = ()
    fixed: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    """Values the statement itself gives (``.values(column=None)``), by parameter name."""

    def args(self, params: Mapping[str, Any]) -> list[Any]:
        """The positional arguments for ``params`` (asyncpg's ``$1``, ``$2``…)."""
        if self.fixed:
            params = {**self.fixed, **params}
        return [params[name] for name in self.names]


def _compare_and_set(*extra: ColumnElement[bool], merge_state: bool = True) -> Update:
    """The revision compare-and-set: it matches only the writer the session expects.

    The revision is the one the writer read; the create time (when given) is the session's
    it saw, so a deleted and recreated session never takes its writes; with a fence the
    writer's claim is the latest, without one no other claim's lease runs; the session has
    not expired (``fresh``: written since, or held by a turn).
    """
    free = or_(sessions.c.claim_until.is_(None), sessions.c.claim_until <= epoch_now())
    values: dict[str, Any] = {
        "revision": sessions.c.revision + literal_column("1", Integer),
        "update_time": case((sessions.c.update_time > _NOW, sessions.c.update_time), else_=_NOW),
    }
    # A turn's last event also releases its claim (``release``): as RELEASE_FINISHED does.
    for column in (sessions.c.claim_until, sessions.c.open_invocation_id, sessions.c.open_since):
        values[column.name] = case((_RELEASE, null()), else_=column)
    if merge_state:
        values["state"] = case(
            (_SDELTA.is_(None), sessions.c.state), else_=json_merge(sessions.c.state, _SDELTA)
        )
    return (
        update(sessions)
        .where(
            sessions.c.app_name == _APP,
            sessions.c.user_id == _USER,
            sessions.c.id == _SID,
            sessions.c.revision == bindparam("expected", type_=Integer),
            or_(_CTIME.is_(None), sessions.c.create_time == _CTIME),
            case((_FENCE.is_(None), free), else_=sessions.c.claim_token == _FENCE),
            alive(bindparam("fresh", type_=DateTimeUTC)),
            *extra,
        )
        .values(values)
        .returning(sessions.c.revision, sessions.c.update_time)
    )


def _explain() -> ClauseElement:
    """Why a compare-and-set matched nothing.

    The session row (if any) and the stored event of that id (if any), with the claim's
    token and the seconds its lease still runs.
    """
    stored = and_(
        events.c.app_name == sessions.c.app_name,
        events.c.user_id == sessions.c.user_id,
        events.c.session_id == sessions.c.id,
        events.c.id == _EID,
    )
    return (
        select(
            sessions.c.update_time,
            events.c.sequence,
            events.c.payload,
            sessions.c.create_time,
            sessions.c.claim_token,
            sessions.c.claim_until - epoch_now(),
        )
        .select_from(sessions.outerjoin(events, stored))
        .where(sessions.c.app_name == _APP, sessions.c.user_id == _USER, sessions.c.id == _SID)
    )


def _scope_upserts(insert_of: Any, source: Any = None) -> tuple[Any, Any]:
    """The app and user state upserts (``source``: select their row from it, PostgreSQL)."""
    statements = []
    keyed: tuple[tuple[Table, BindParameter[Any], dict[str, BindParameter[str]]], ...] = (
        (app_states, _ADELTA, {"app_name": _APP}),
        (user_states, _UDELTA, {"app_name": _APP, "user_id": _USER}),
    )
    for table, delta, keys in keyed:
        row: dict[str, BindParameter[Any]] = {**keys, "state": delta, "update_time": _NOW}
        if source is None:
            statement = insert_of(table).values(row)
        else:
            picked = select(*row.values()).select_from(source).where(delta.is_not(None))
            statement = insert_of(table).from_select(list(row), picked)
        statements.append(
            statement.on_conflict_do_update(
                index_elements=list(keys),
                set_={
                    "state": json_merge(table.c.state, statement.excluded.state),
                    "update_time": statement.excluded.update_time,
                },
            )
        )
    return statements[0], statements[1]


def _postgresql() -> dict[str, Compiled]:
    """One statement: data-modifying CTEs, one round trip.

    A delta parameter may be NULL (no change in that scope), so one statement serves every
    append. The event id's uniqueness is left to its unique index: a re-appended id makes the
    insert, hence the whole statement, fail (``unique_violation``) and change nothing. A NOT
    EXISTS probe would let the planner pick the invocation-id index on a table without
    statistics and scan the whole conversation on every append.
    """
    cas = _compare_and_set().cte("s")
    event = insert(events).from_select(
        [*_EVENT_VALUES, "sequence"], select(*_EVENT_VALUES.values(), cas.c.revision)
    )
    app, user = _scope_upserts(postgresql.insert, cas)
    statement = select(cas.c.revision, cas.c.update_time).add_cte(
        event.cte("e"), app.cte("a"), user.cte("u")
    )
    return {
        "append": _compile_postgresql(statement),
        "explain": _compile_postgresql(_explain()),
        "create": _compile_postgresql(_create_postgresql()),
    }


Window = tuple[bool, bool] | str | None
"""Which session read: a :data:`._statements.GET` key, or ``"since"`` (the cache's tail)."""


def _start_postgresql(window: Window) -> ClauseElement:
    """Claim a released session, commit the turn's message, read the session: one statement.

    The claim is :data:`._statements.CLAIM` (a session held, or left unreleased by a holder
    that died, matches nothing: the turn then takes the usual steps); the same UPDATE
    commits the message (``eid`` NULL: none) as the append does, its event inserted with
    the new revision and its app and user deltas merged. The SELECT reads the statement's
    snapshot, so the session as it was before the message; the UPDATE matches only the
    revision that snapshot holds (an append that landed in between makes it match nothing,
    as a busy session does). A stored event id fails the statement (``unique_violation``),
    writing nothing. ``claimed_*`` are NULL when nothing was claimed; the events are read
    only when it was. ``"since"``: the events after ``since`` of the incarnation created
    at ``ctime``, all of another one.
    """
    message = _EID.is_not(None)
    key = (sessions.c.app_name == _APP, sessions.c.user_id == _USER, sessions.c.id == _SID)
    as_read = select(sessions.c.revision).where(*key)
    claimed = (
        _statements.claim_released()
        .where(sessions.c.revision == as_read.scalar_subquery())
        .values(
            revision=sessions.c.revision + case((message, 1), else_=0),
            update_time=case(
                (message & (sessions.c.update_time < _NOW), _NOW), else_=sessions.c.update_time
            ),
            state=case(
                (_SDELTA.is_(None), sessions.c.state),
                else_=json_merge(sessions.c.state, _SDELTA),
            ),
        )
        .returning(sessions.c.revision, sessions.c.update_time)
        .cte("s")
    )
    event = insert(events).from_select(
        [*_EVENT_VALUES, "sequence"],
        select(*_EVENT_VALUES.values(), claimed.c.revision).where(message),
    )
    app, user = _scope_upserts(postgresql.insert, claimed)
    got = select(claimed.c.revision).scalar_subquery()
    payloads: ColumnElement[Any] | None = None
    if window is not None:
        since = None
        if window == "since":
            same = sessions.c.create_time == _CTIME
            from_here = case((same, bindparam("since", type_=Integer)), else_=0)
            since = select(from_here).where(*key).scalar_subquery()
        recent, after = (False, False) if isinstance(window, str) else window
        listed = _statements.events_list(recent=recent, after=after, since=since)
        payloads = case((got.is_not(None), listed.scalar_subquery()), else_=null())
    read = _statements.session_read(
        payloads,
        got.label("claimed_revision"),
        select(claimed.c.update_time).scalar_subquery().label("claimed_time"),
        select(claimed.c.open_invocation_id).scalar_subquery().label("claimed_open"),
    )
    return read.add_cte(claimed, event.cte("e"), app.cte("a"), user.cte("u"))


def _create_postgresql() -> ClauseElement:
    """Create a session and merge its app/user state: one statement, one round trip.

    It returns no row when the key is taken (``ON CONFLICT DO NOTHING``), and then writes
    nothing: the state merges select their input from the inserted row. Otherwise it returns
    the row's update time and the app and user state after the merge.
    """
    row = {
        "app_name": _APP,
        "user_id": _USER,
        "id": _SID,
        "state": bindparam("state", type_=JSONDocument),
        "creation_state": bindparam("creation", type_=JSONDocument),
        "revision": literal_column("0", Integer),
        "create_time": _NOW,
        "update_time": _NOW,
    }
    created = (
        postgresql.insert(sessions)
        .values(row)
        .on_conflict_do_nothing()
        .returning(sessions.c.update_time)
        .cte("s")
    )
    app, user = _scope_upserts(postgresql.insert, created)
    app_merged = app.returning(app_states.c.state).cte("a")
    user_merged = user.returning(user_states.c.state).cte("u")
    app_now = select(app_states.c.state).where(app_states.c.app_name == _APP)
    user_now = select(user_states.c.state).where(
        user_states.c.app_name == _APP, user_states.c.user_id == _USER
    )
    return select(
        created.c.update_time,
        func.coalesce(
            select(app_merged.c.state).scalar_subquery(), app_now.scalar_subquery()
        ).label("app_state"),
        func.coalesce(
            select(user_merged.c.state).scalar_subquery(), user_now.scalar_subquery()
        ).label("user_state"),
    )


def _sqlite() -> dict[str, Compiled]:
    """The statements of one append inside the batch's ``BEGIN IMMEDIATE`` transaction.

    The compare-and-set also checks the event id is not stored yet (a retry then explains
    itself instead of failing the transaction the group shares).
    """
    not_stored = ~exists().where(
        events.c.app_name == _APP,
        events.c.user_id == _USER,
        events.c.session_id == _SID,
        events.c.id == _EID,
    )
    event = insert(events).values({**_EVENT_VALUES, "sequence": bindparam("seq", type_=Integer)})
    app, user = _scope_upserts(sqlite.insert)
    statements = {
        "cas": _compare_and_set(not_stored),
        "cas plain": _compare_and_set(not_stored, merge_state=False),
        "event": event,
        "app state": app,
        "user state": user,
        "explain": _explain(),
    }
    return {label: _compile_sqlite(statement) for label, statement in statements.items()}


def _compile_postgresql(statement: ClauseElement) -> Compiled:
    compiled = statement.compile(dialect=_ASYNCPG)
    assert isinstance(compiled, SQLCompiler)
    names = tuple(compiled.positiontup or ())
    given = {name: compiled.params[name] for name in names if not compiled.binds[name].required}
    return Compiled(str(compiled), names, given)


def _compile_sqlite(statement: ClauseElement) -> Compiled:
    return Compiled(str(statement.compile(dialect=sqlite.dialect(paramstyle="named"))))


POSTGRESQL = _postgresql()
"""``append``, ``explain`` and ``create`` for asyncpg (positional parameters)."""

POSTGRESQL_READS: dict[tuple[bool, bool] | str | None, Compiled] = {
    **{window: _compile_postgresql(query) for window, query in _statements.GET.items()},
    "since": _compile_postgresql(_statements.GET_SINCE),
}
""":data:`._statements.GET` (same keys) and ``"since"`` (:data:`._statements.GET_SINCE`) for
asyncpg: a session read, the hottest read, on the driver connection."""

POSTGRESQL_STARTS: dict[Window, Compiled] = {
    window: _compile_postgresql(_start_postgresql(window)) for window in POSTGRESQL_READS
}
"""A turn's start (claim, message, read) for asyncpg, by the read's events (keys as
:data:`POSTGRESQL_READS`)."""

CLAIM_STATEMENTS: dict[str, Update | Select[Any]] = {
    name: getattr(_statements, name)
    for name in (
        "CLAIM",
        "CLAIM_TAKE_OVER",
        "CLAIM_HELD",
        "EXTEND_CLAIM",
        "EXTEND_AND_MARK",
        "RELEASE_CLAIM",
        "RELEASE_FINISHED",
    )
}
"""The claim statements of :mod:`._statements`, by name (every turn runs two or three)."""

POSTGRESQL_CLAIMS: dict[str, Compiled] = {
    name: _compile_postgresql(statement) for name, statement in CLAIM_STATEMENTS.items()
}
""":data:`CLAIM_STATEMENTS` for asyncpg, on the driver connection."""

SQLITE = _sqlite()
"""``cas``, ``cas plain``, ``event``, ``app state``, ``user state`` and ``explain`` for
``sqlite3`` (named parameters)."""
