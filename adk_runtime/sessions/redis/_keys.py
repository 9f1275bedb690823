"""Key names of the Redis session store.

Key layout (``P`` is ``key_prefix``, ``A``/``U``/``S`` the app, user and session ids with
``%``, ``:``, ``{`` and ``}`` percent-encoded; every value is codec JSON text):

==========================  ===========  ====================================================
key                         type         content
==========================  ===========  ====================================================
``P{A}:session:U:S``        hash         ``rev``, ``ctime``, ``mtime`` (server time, seconds
                                         with microseconds), ``nonce`` of the create call,
                                         the claim (``ctok``, ``cuntil``, ``ctook``), the
                                         open invocation (``inv``, ``invat``) and ``init``, the
                                         creation state as one JSON object (read only by
                                         fork, rewind and export; absent: unknown, a
                                         session created before it was kept)
``P{A}:state:U:S``          hash         session state, one field per key
``P{A}:events:U:S``         list         the events as stored JSON, one entry each; entry
                                         ``i`` holds sequence ``i + 1``
``P{A}:eventids:U:S``       hash         event id → sequence (idempotent re-append)
``P{A}:eventtimes:U:S``     sorted set   sequence scored by event timestamp
``P{A}:app``                hash         ``app:`` state, one field per key (no prefix)
``P{A}:user:U``             hash         ``user:`` state, one field per key (no prefix)
``P{A}:sessions:U``         sorted set   the user's session ids by update time
``P{A}:sessions``           sorted set   ``U:S`` of every session of the app by update time
``P{A}:open``               sorted set   ``U:S`` of the sessions with an open invocation
                                         (scores 0: a user's are one lexicographic range)
``P{A}:ack``                string       a marker with a short TTL, set only with
                                         ``wait_replicas`` by a write that found its work
                                         done (see ``_replicas.py``)
==========================  ===========  ====================================================

Why one field per state key (and not one JSON blob per scope): a delta is applied with
``HSET``, so two writers of distinct keys never overwrite each other, the Lua scripts never
decode or re-encode a value (Lua's cjson would mangle big integers and floats), and merging is
shallow by construction, as the contract says.

Every id is escaped before it becomes part of a key: ``%``, ``:``, ``{`` and ``}`` are
percent-encoded, so ``:`` separates the parts of a key unambiguously (user ``a:b`` with
session ``c`` never meets user ``a`` with session ``b:c``) and the only braces in a key are the
hash tag around the app name. Every key of an app therefore lands on one Redis Cluster slot:
a script may only touch keys of one slot, and an append writes the session, the user and the
app keys together. An app's data lives on one slot (one shard); apps spread over the
cluster, a single app does not. That is the price of atomic ``app:`` writes.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from typing import ClassVar

from adk_runtime.errors import ConfigurationError

_ESCAPES = str.maketrans({"%": "%25", ":": "%3A", "{": "%7B", "}": "%7D"})
_UNESCAPES = {"%25": "%", "%3A": ":", "%7B": "{", "%7D": "}"}
_ESCAPED = re.compile("%25|%3A|%7B|%7D")


def escape(part: str) -> str:
    """Return ``part`` with ``%``, ``:``, ``{`` and ``}`` percent-encoded."""
    return part.translate(_ESCAPES)


def unescape(part: str) -> str:
    """Undo :func:`escape`."""
    if "%" not in part:
        return part
    return _ESCAPED.sub(lambda match: _UNESCAPES[match.group(0)], part)


def check_prefix(prefix: str) -> str:
    """Return ``prefix`` if it can start every key, else raise ConfigurationError."""
    if not isinstance(prefix, str):
        raise ConfigurationError("key_prefix must be a string.")
    if "{" in prefix or "}" in prefix:
        raise ConfigurationError(
            "key_prefix must not contain '{' or '}': the braces of every key are the "
            "Redis Cluster hash tag around the app name."
        )
    return prefix


def app_index_member(user_id: str, session_id: str) -> str:
    """Return the member naming a session in the app-wide listing index."""
    return f"{escape(user_id)}:{escape(session_id)}"


def parse_app_index_member(member: str) -> tuple[str, str]:
    """Split an app-wide listing member into ``(user_id, session_id)``.

    Raises:
        ValueError: ``member`` was not made by :func:`app_index_member`.
    """
    user, sep, session = member.partition(":")
    if not sep or not user or not session or ":" in session:
        raise ValueError(member)
    return unescape(user), unescape(session)


@dataclasses.dataclass(frozen=True)
class AppKeys:
    """The keys shared by every session of one app (all on the app's hash slot)."""

    prefix: str
    app_name: str

    @functools.cached_property
    def base(self) -> str:
        """``<prefix>{<app>}``: the start of every key of the app."""
        return f"{self.prefix}{{{escape(self.app_name)}}}"

    @property
    def app_state(self) -> str:
        """Hash of ``app:`` state, one field per key."""
        return f"{self.base}:app"

    @property
    def app_index(self) -> str:
        """Sorted set of every session of the app by update time (``user:session`` members)."""
        return f"{self.base}:sessions"

    @property
    def open_index(self) -> str:
        """Sorted set (scores 0) of the sessions with an open invocation (``user:session``)."""
        return f"{self.base}:open"

    @property
    def ack(self) -> str:
        """String with a short TTL: the marker of a write that found its work done.

        Set only when the service waits for replicas, so that ``WAIT`` covers what the write
        reports (see ``_replicas.py``).
        """
        return f"{self.base}:ack"

    def user_state(self, user_id: str) -> str:
        """Hash of the user's ``user:`` state, one field per key."""
        return f"{self.base}:user:{escape(user_id)}"

    def user_index(self, user_id: str) -> str:
        """Sorted set of the user's sessions by update time (session id members)."""
        return f"{self.base}:sessions:{escape(user_id)}"

    def session(self, user_id: str, session_id: str) -> SessionKeys:
        """Return the keys of one session."""
        return SessionKeys(self, user_id, session_id)


@dataclasses.dataclass(frozen=True)
class SessionKeys:
    """The keys of one session, plus the app/user keys its writes touch."""

    app: AppKeys
    user_id: str
    session_id: str

    @functools.cached_property
    def _ids(self) -> str:
        return f"{escape(self.user_id)}:{escape(self.session_id)}"

    def _key(self, kind: str) -> str:
        return f"{self.app.base}:{kind}:{self._ids}"

    @property
    def meta(self) -> str:
        """Hash: ``rev``, ``ctime``, ``mtime`` (and the ``nonce`` of the create call)."""
        return self._key("session")

    @property
    def state(self) -> str:
        """Hash of session-scoped state, one field per key."""
        return self._key("state")

    @property
    def events(self) -> str:
        """List of stored events (JSON text); index ``i`` holds sequence ``i + 1``."""
        return self._key("events")

    @property
    def event_ids(self) -> str:
        """Hash: event id → sequence number (idempotent re-append)."""
        return self._key("eventids")

    @property
    def event_times(self) -> str:
        """Sorted set: sequence number scored by event timestamp (``after_timestamp``)."""
        return self._key("eventtimes")


class KeySpace:
    """The keys of one service: its ``key_prefix``, with a few apps' key starts kept."""

    _KEPT: ClassVar[int] = 64

    def __init__(self, prefix: str) -> None:
        """Use ``prefix`` (checked: :func:`check_prefix`)."""
        self.prefix = check_prefix(prefix)
        self._apps: dict[str, AppKeys] = {}

    def app(self, app_name: str) -> AppKeys:
        """The app's keys (kept for a few apps: their escaped start is built once)."""
        keys = self._apps.get(app_name)
        if keys is None:
            if len(self._apps) >= self._KEPT:
                self._apps.clear()
            keys = self._apps[app_name] = AppKeys(self.prefix, app_name)
        return keys

    def session(self, app_name: str, user_id: str, session_id: str) -> SessionKeys:
        """The keys of one session."""
        return self.app(app_name).session(user_id, session_id)
