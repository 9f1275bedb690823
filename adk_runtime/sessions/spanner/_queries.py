"""The SQL the Spanner service runs (GoogleSQL), built from a few fixed shapes.

Every read of a session is one statement, so one round trip: the session row, its app and
user state (scalar subqueries) and the events asked for (an ``ARRAY`` subquery over the
interleaved events, newest first with a ``LIMIT`` for ``num_recent_events``). Times are read
as ``UNIX_MICROS`` and compared with ``TIMESTAMP_MICROS(@param)``.
"""

from __future__ import annotations

from adk_runtime.sessions.spanner._schema import SHARDS

__all__ = [
    "ALIVE",
    "KEY",
    "SESSION_COLUMNS",
    "append_check",
    "claim_check",
    "idle_page",
    "list_page",
    "open_invocations",
    "session_read",
    "turn_columns",
]

KEY = "s.app_name = @app AND s.user_id = @user AND s.session_id = @sid"
"""The session of ``@app``, ``@user``, ``@sid`` (table alias ``s``)."""

ALIVE = (
    "(s.update_time >= TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL @ttl MICROSECOND) "
    "OR IFNULL(s.claim_until > CURRENT_TIMESTAMP(), FALSE))"
)
"""The session is there for readers: written in the last ``@ttl`` microseconds (the idle TTL;
a century without one), or held by a turn (its lease runs), both by Spanner's clock; never
NULL (a session never claimed is not held)."""

_EVENT_KEY = "e.app_name = s.app_name AND e.user_id = s.user_id AND e.session_id = s.session_id"
_APP_STATE = "(SELECT a.state FROM adk_app_states a WHERE a.app_name = s.app_name)"
_USER_STATE = (
    "(SELECT u.state FROM adk_user_states u "
    "WHERE u.app_name = s.app_name AND u.user_id = s.user_id)"
)

SESSION_COLUMNS = (
    "s.user_id AS user_id, s.session_id AS session_id, s.revision AS revision, "
    "s.incarnation AS incarnation, s.state AS state, UNIX_MICROS(s.update_time) AS mtime, "
    f"{_APP_STATE} AS app_state, {_USER_STATE} AS user_state"
)
_SESSION_NAMES = "user_id, session_id, revision, incarnation, state, mtime, app_state, user_state"
"""A session as :func:`~adk_runtime.sessions.spanner._rows.session_of` reads it."""


def session_read(*, since: bool, after: bool, limited: bool, turn: bool = False) -> str:
    """A session (the first row) and its events asked for (one row each, newest first).

    Events after revision ``@since``, at or after ``@after`` (their timestamp), the last
    ``@count`` of them (each only when asked for). The events come as rows of a ``UNION
    ALL``, not as an array in the session's row: a constructed value is limited in size.
    ``turn``: the session row also has what a turn's start checks (:func:`turn_columns`).
    Every row ends with the event's sequence and payload (NULL in the session's row).
    """
    conditions = ["e.app_name = @app", "e.user_id = @user", "e.session_id = @sid"]
    if since:
        conditions.append("e.sequence > @since")
    if after:
        conditions.append("e.timestamp >= @after")
    limit = " LIMIT @count" if limited else ""
    extra = f", {turn_columns()}" if turn else ""
    blanks = ", ".join(["NULL"] * (_SESSION_WIDTH + (_TURN_WIDTH if turn else 0)))
    return (
        f"SELECT 0 AS kind, {SESSION_COLUMNS}{extra}, CAST(NULL AS INT64) AS sequence, "
        f"CAST(NULL AS BYTES) AS payload FROM adk_sessions s WHERE {KEY} AND {ALIVE} "
        f"UNION ALL SELECT 1, {blanks}, e.sequence, e.payload FROM ("
        f"SELECT e.sequence, e.payload FROM adk_events e WHERE {' AND '.join(conditions)} "
        f"ORDER BY e.sequence DESC{limit}) e "
        "ORDER BY kind, sequence DESC"
    )


_SESSION_WIDTH = 8
_TURN_WIDTH = 5


def turn_columns() -> str:
    """What a turn's start checks: the claim, the clock, the message's id (``@eid``).

    The message's id lookup is '' when there is none; the last column is ``expire_at``.
    """
    return (
        "UNIX_MICROS(s.claim_until), s.open_invocation, UNIX_MICROS(CURRENT_TIMESTAMP()), "
        + _found_event()
        + ", UNIX_MICROS(s.expire_at)"
    )


def _found_event() -> str:
    """The sequence of event ``@eid`` in the session (an array of one, or empty)."""
    return (
        "ARRAY(SELECT e.sequence FROM adk_events@{FORCE_INDEX=adk_events_by_id} e "
        f"WHERE {_EVENT_KEY} AND e.event_id = @eid)"
    )


STORED_EVENT = (
    "SELECT e.payload FROM adk_events e WHERE e.app_name = @app AND e.user_id = @user "
    "AND e.session_id = @sid AND e.sequence = @sequence"
)
"""One stored event's payload (read only by a retried append)."""


def append_check(*, app_state: bool, user_state: bool) -> str:
    """What an append checks (and the states it merges into), read in its transaction.

    The last column says whether the session is still there (:data:`ALIVE`).
    """
    extra = (f", {_APP_STATE}" if app_state else ", NULL") + (
        f", {_USER_STATE}" if user_state else ", NULL"
    )
    found = _found_event()
    return (
        "SELECT s.revision, s.incarnation, s.state, UNIX_MICROS(s.update_time), "
        "s.claim_token, UNIX_MICROS(s.claim_until), UNIX_MICROS(CURRENT_TIMESTAMP()), "
        f"{found}{extra}, {ALIVE} FROM adk_sessions s WHERE {KEY}"
    )


def claim_check() -> str:
    """A session's claim, as a claim step reads it in its transaction.

    With the session's ``expire_at`` and whether it is still there (:data:`ALIVE`).
    """
    return (
        "SELECT s.claim_token, UNIX_MICROS(s.claim_until), s.claim_took_over, "
        "s.open_invocation, UNIX_MICROS(CURRENT_TIMESTAMP()), UNIX_MICROS(s.expire_at), "
        f"{ALIVE} FROM adk_sessions s WHERE {KEY}"
    )


def _after(descending: bool, user_fixed: bool) -> str:
    """Keyset condition: after the cursor ``@t``, ``@cu``, ``@cs`` in the listing order."""
    op = "<" if descending else ">"
    time = "s.update_time"
    cursor = "TIMESTAMP_MICROS(@t)"
    if user_fixed:
        return f"({time} {op} {cursor} OR ({time} = {cursor} AND s.session_id {op} @cs))"
    return (
        f"({time} {op} {cursor} OR ({time} = {cursor} AND (s.user_id {op} @cu "
        f"OR (s.user_id = @cu AND s.session_id {op} @cs))))"
    )


def list_page(*, user: bool, after: bool, limited: bool) -> str:
    """A page of ``list_sessions``: newest first (update time, user id, session id)."""
    order = "ORDER BY mtime DESC, user_id DESC, session_id DESC"
    limit = " LIMIT @limit" if limited else ""
    if user:
        where = f"s.app_name = @app AND s.user_id = @user AND {ALIVE}"
        if after:
            where += " AND " + _after(True, True)
        return (
            f"SELECT {SESSION_COLUMNS} FROM adk_sessions@{{FORCE_INDEX=adk_sessions_by_user}} s "
            f"WHERE {where} ORDER BY s.update_time DESC, s.session_id DESC{limit}"
        )
    return _merged_shards(SESSION_COLUMNS, _SESSION_NAMES, True, after, limit, order, ALIVE)


def idle_page(*, user: bool, after: bool) -> str:
    """A batch of the prune walk: sessions written before ``@before``, oldest first."""
    columns = (
        "s.user_id AS user_id, s.session_id AS session_id, UNIX_MICROS(s.update_time) AS mtime"
    )
    order = "ORDER BY mtime, user_id, session_id"
    if user:
        where = (
            "s.app_name = @app AND s.user_id = @user AND s.update_time < TIMESTAMP_MICROS(@before)"
        )
        if after:
            where += " AND " + _after(False, True)
        return (
            f"SELECT {columns} FROM adk_sessions@{{FORCE_INDEX=adk_sessions_by_user}} s "
            f"WHERE {where} ORDER BY s.update_time, s.session_id LIMIT @limit"
        )
    before = "s.update_time < TIMESTAMP_MICROS(@before)"
    names = "user_id, session_id, mtime"
    return _merged_shards(columns, names, False, after, " LIMIT @limit", order, before)


def _merged_shards(
    columns: str,
    names: str,
    descending: bool,
    after: bool,
    limit: str,
    order: str,
    extra: str = "",
) -> str:
    """The heads of every shard of ``adk_sessions_by_app``, merged (see ``_schema``)."""
    direction = " DESC" if descending else ""
    inner_order = (
        f"ORDER BY s.update_time{direction}, s.user_id{direction}, s.session_id{direction}"
    )
    parts = []
    for shard in range(SHARDS):
        where = f"s.app_name = @app AND s.shard = {shard}"
        if extra:
            where += f" AND {extra}"
        if after:
            where += " AND " + _after(descending, False)
        parts.append(
            f"(SELECT {columns} FROM adk_sessions@{{FORCE_INDEX=adk_sessions_by_app}} s "
            f"WHERE {where} {inner_order}{limit})"
        )
    union = " UNION ALL ".join(parts)
    return f"SELECT {names} FROM ({union}) {order}{limit}"


def open_invocations(*, user: bool, session: bool) -> str:
    """The sessions of the app (of one user, of one session) with an open invocation."""
    where = f"s.app_name = @app AND s.open_invocation IS NOT NULL AND {ALIVE}"
    if user:
        where += " AND s.user_id = @user"
    if session:
        where += " AND s.session_id = @sid"
    return (
        "SELECT s.user_id, s.session_id, s.open_invocation, UNIX_MICROS(s.open_since), "
        "UNIX_MICROS(s.claim_until), UNIX_MICROS(CURRENT_TIMESTAMP()) "
        f"FROM adk_sessions@{{{_OPEN_INDEX}}} s WHERE {where}"
    )


# The emulator cannot tell that ``open_invocation IS NOT NULL`` makes the null-filtered index
# complete for the query and refuses it without its own hint (Spanner ignores that hint).
_OPEN_INDEX = (
    "FORCE_INDEX=adk_sessions_by_open_invocation, "
    "spanner_emulator.disable_query_null_filtered_index_check=true"
)
