"""Paginated listing of sessions from the per-user and per-app sorted sets.

A page is read newest first from the sorted set (score = update time, the session's
``last_update_time``); the keyset position of the last session of the previous page
(:class:`~adk_runtime.sessions._paging.ListCursor`) maps to the entry ``(score, member)``, so
sessions updated or deleted between pages cause neither gaps nor repeats among the rest.
Entries tying in score come in descending member order: the session id in a user's index, the
encoded ``user:session`` in the app's index (the same as the other backends' (user id,
session id) order unless an id holds ``%``, ``:``, ``{`` or ``}``, which are percent-encoded).
Entries of sessions whose keys expired (TTL) are dropped from both indexes when a listing meets
them.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from adk_runtime.sessions._paging import ListCursor
from adk_runtime.sessions.redis import _protocol as protocol
from adk_runtime.sessions.redis._keys import AppKeys, app_index_member, parse_app_index_member
from adk_runtime.sessions.redis._scripts import Scripts
from adk_runtime.sessions.redis._values import decode_mapping, text
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import merge_state

_T = TypeVar("_T")
Call = Callable[[Awaitable[Any]], Awaitable[Any]]
_Entry = tuple[str, float]  # (member, score)


class Lister:
    """Reads one page of one listing index."""

    def __init__(
        self, client: Any, scripts: Scripts, app: AppKeys, user_id: str | None, call: Call
    ) -> None:
        """Prepare to list the sessions of ``app`` (of one user when ``user_id`` is set)."""
        self._client = client
        self._scripts = scripts
        self._app = app
        self._user_id = user_id
        self._call = call
        self._index = app.app_index if user_id is None else app.user_index(user_id)

    async def page(self, limit: int | None, after: ListCursor | None) -> list[Session]:
        """Return the first ``limit`` (None: all) live sessions after ``after``."""
        cursor = None if after is None else (self._member(after), after.update_time)
        sessions: list[Session] = []
        while True:
            need = None if limit is None else limit - len(sessions)
            entries = await self._entries(-1 if need is None else need, cursor)
            for entry, session in zip(entries, await self._load(entries), strict=True):
                if session is None:
                    await self._prune(entry[0])
                else:
                    sessions.append(session)
            if need is None or len(entries) < need or len(sessions) == limit:
                return sessions
            cursor = entries[-1]

    def _member(self, cursor: ListCursor) -> str:
        if self._user_id is not None:
            return cursor.session_id
        return app_index_member(cursor.user_id, cursor.session_id)

    def _ids(self, member: str) -> tuple[str, str]:
        if self._user_id is not None:
            return self._user_id, member
        return parse_app_index_member(member)

    async def _entries(self, count: int, cursor: _Entry | None) -> list[_Entry]:
        keys, args = protocol.page_call(
            self._index, count=count, after_score=None if cursor is None else cursor[1]
        )
        flat = await self._call(self._scripts.page(keys, args))
        entries = [(text(flat[i]), float(flat[i + 1])) for i in range(0, len(flat), 2)]
        if cursor is not None:
            # Entries tying with the cursor's score come first, members in descending
            # (bytewise = code point) order: drop those at or before the cursor.
            entries = [e for e in entries if e[1] < cursor[1] or e[0] < cursor[0]]
        return entries if count < 0 else entries[:count]

    async def _load(self, entries: list[_Entry]) -> list[Session | None]:
        if not entries:
            return []
        ids = [self._ids(member) for member, _score in entries]
        users = sorted({user for user, _session in ids})
        pipe = self._client.pipeline(transaction=True)
        pipe.hgetall(self._app.app_state)
        for user in users:
            pipe.hgetall(self._app.user_state(user))
        for user, session_id in ids:
            keys = self._app.session(user, session_id)
            pipe.hget(keys.meta, "rev")
            pipe.hgetall(keys.state)
        replies = await self._call(pipe.execute())
        app_state = replies[0]
        user_states = dict(zip(users, replies[1 : 1 + len(users)], strict=True))
        rest = replies[1 + len(users) :]
        loaded: list[Session | None] = []
        for index, (user, session_id) in enumerate(ids):
            revision, state = rest[2 * index], rest[2 * index + 1]
            if revision is None:
                loaded.append(None)
                continue
            merged = merge_state(
                decode_mapping(state), decode_mapping(app_state), decode_mapping(user_states[user])
            )
            session = Session(
                id=session_id,
                app_name=self._app.app_name,
                user_id=user,
                state=merged,
                # The index score (written with mtime by every script): the page cursor.
                last_update_time=entries[index][1],
                revision=int(revision),
            )
            loaded.append(session)
        return loaded

    async def _prune(self, member: str) -> None:
        keys, args = protocol.prune_call(self._app.session(*self._ids(member)))
        await self._call(self._scripts.prune(keys, args))
