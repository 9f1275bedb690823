"""Paginated listing of sessions from the per-user and per-app sorted sets, one script a page.

A page is read newest first from the sorted set (score = update time, the session's
``last_update_time``) by ``list.lua``, which also returns each listed session's revision and
state and the app and user state: one round trip, one consistent snapshot. The keyset position
of the last session of the previous page (:class:`~adk_runtime.sessions._paging.ListCursor`)
maps to the entry ``(score, member)``, so sessions updated or deleted between pages cause
neither gaps nor repeats among the rest. Entries tying in score come in descending member
order: the session id in a user's index, the encoded ``user:session`` in the app's index (the
same as the other backends' (user id, session id) order unless an id holds ``%``, ``:``,
``{`` or ``}``, which are percent-encoded). Entries of sessions whose keys expired (TTL) are
dropped from both indexes by the script when it meets them.

Pruning (:func:`idle_sessions`) walks the same indexes the other way, oldest first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from adk_runtime.sessions._paging import ListCursor
from adk_runtime.sessions.redis import _protocol as protocol
from adk_runtime.sessions.redis._keys import (
    AppKeys,
    app_index_member,
    escape,
    parse_app_index_member,
)
from adk_runtime.sessions.redis._scripts import Scripts
from adk_runtime.sessions.redis._values import decode_pairs, text
from adk_runtime.sessions.retention import IdleQuery, IdleSession
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import merge_state

Call = Callable[[Callable[[Scripts], Awaitable[Any]]], Awaitable[Any]]
"""Runs one call, given how to build it from the scripts of the client in use."""


class Lister:
    """Reads pages of one listing index."""

    def __init__(self, app: AppKeys, user_id: str | None, call: Call) -> None:
        """Prepare to list the sessions of ``app`` (of one user when ``user_id`` is set)."""
        self._app = app
        self._user_id = user_id
        self._call = call

    async def page(self, limit: int | None, after: ListCursor | None) -> list[Session]:
        """Return the first ``limit`` (None: all) live sessions after ``after``."""
        cursor = None if after is None else (self._member(after), after.update_time)
        sessions: list[Session] = []
        while True:
            need = None if limit is None else limit - len(sessions)
            keys, args = protocol.list_call(
                self._app,
                self._user_id,
                count=-1 if need is None else need,
                after_score=None if cursor is None else cursor[1],
            )
            reply = protocol.parse_list(await self._call(_list_call(keys, args)))
            entries = reply.entries
            if cursor is not None:
                # Entries tying with the cursor's score come first, members in descending
                # (bytewise = code point) order: drop those at or before the cursor.
                member, score = cursor
                entries = [e for e in entries if e[1] < score or e[0] < member]
            if need is not None:
                entries = entries[:need]
            for entry in entries:
                live = reply.sessions.get(entry[0])
                if live is not None:
                    sessions.append(self._session(reply, entry, live))
            if need is None or len(entries) < need or len(sessions) == limit:
                return sessions
            cursor = entries[-1]  # expired entries were dropped: read on past them

    def _member(self, cursor: ListCursor) -> str:
        if self._user_id is not None:
            return cursor.session_id
        return app_index_member(cursor.user_id, cursor.session_id)

    def _session(
        self, reply: protocol.ListReply, entry: tuple[str, float], live: protocol.ListedSession
    ) -> Session:
        member, score = entry
        if self._user_id is not None:
            user_id, session_id = self._user_id, member
        else:
            user_id, session_id = parse_app_index_member(member)
        state = merge_state(
            decode_pairs(live.state),
            decode_pairs(reply.app_state),
            decode_pairs(reply.user_states[escape(user_id)]),
        )
        session = Session(
            id=session_id,
            app_name=self._app.app_name,
            user_id=user_id,
            state=state,
            last_update_time=score,
            revision=live.revision,
        )
        session._incarnation = live.nonce or None
        return session


def _list_call(keys: list[str], args: list[Any]) -> Callable[[Scripts], Awaitable[Any]]:
    return lambda scripts: scripts.list(keys, args)


async def idle_sessions(
    app: AppKeys, query: IdleQuery, call: Call, client: Any
) -> list[IdleSession]:
    """A batch of the idle sessions ``query`` asks for, read from a listing index.

    Ascending by score (update time), ties in member order (bytewise), the order
    ``list.lua`` pages in too. From the cursor's score: every entry tying with it (``ZCOUNT``)
    plus ``limit`` more, then the ones at or before the cursor are dropped.
    """
    user_id, after = query.user_id, query.after
    index = app.app_index if user_id is None else app.user_index(user_id)
    low = "-inf" if after is None else repr(after.last_update_time)
    ties = 0 if after is None else await call(lambda _: client.zcount(index, low, low))
    entries = await call(
        lambda _: client.zrange(
            index,
            low,
            f"({query.before!r}",
            byscore=True,
            offset=0,
            num=query.limit + ties,
            withscores=True,
        )
    )
    found: list[IdleSession] = []
    for raw, score in entries:
        member = text(raw)
        if after is not None and (float(score), member) <= (
            after.last_update_time,
            _idle_member(after, user_id),
        ):
            continue
        owner, session_id = (
            (user_id, member) if user_id is not None else parse_app_index_member(member)
        )
        found.append(IdleSession(owner, session_id, float(score)))
    return found[: query.limit]


def _idle_member(idle: IdleSession, user_id: str | None) -> str:
    """The listing-index member of ``idle`` (the user's index, or the app's when no user)."""
    if user_id is not None:
        return idle.session_id
    return app_index_member(idle.user_id, idle.session_id)
