"""Key names of the Redis session store (the layout is described in ``service.py``).

Every id is escaped before it becomes part of a key: ``%``, ``:``, ``{`` and ``}`` are
percent-encoded, so ``:`` separates the parts of a key unambiguously (user ``a:b`` with
session ``c`` never meets user ``a`` with session ``b:c``) and the only braces in a key are the
hash tag around the app name. Every key of an app therefore lands on one Redis Cluster slot.
"""

from __future__ import annotations

import dataclasses
import functools
import re

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
