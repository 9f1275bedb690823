"""``google.adk.sessions.sqlite_session_service`` → here: SQLite sessions named by file path.

``SqliteSessionService("sessions.db")`` is ``DatabaseSessionService`` on
``sqlite+aiosqlite:///sessions.db``: the same schema, migrations and guarantees. It does not
read a database written by google-adk's own SQLite service (its tables differ).
"""

from __future__ import annotations

import os
from typing import Any

from adk_runtime.sessions.sql import DatabaseSessionService

__all__ = ["SqliteSessionService"]

_PREFIXES = ("sqlite+aiosqlite:///", "sqlite:///")


class SqliteSessionService(DatabaseSessionService):
    """A ``DatabaseSessionService`` on the SQLite file ``db_path`` (``":memory:"`` allowed)."""

    def __init__(self, db_path: str | os.PathLike[str], **kwargs: Any) -> None:
        """Open the sessions stored in ``db_path``; ``kwargs`` go to ``DatabaseSessionService``.

        A ``sqlite://`` or ``sqlite+aiosqlite://`` URL is accepted as well as a path.
        """
        super().__init__(sqlite_url(db_path), **kwargs)


def sqlite_url(db_path: str | os.PathLike[str]) -> str:
    """The SQLite URL of a file path or URL.

    A path becomes a ``sqlite+aiosqlite`` URL; a ``sqlite`` URL is kept. Query parameters
    (``?mode=ro``, ``?cache=shared``) are SQLite URI parameters: SQLite reads them only from
    a ``file:`` URI opened with ``uri=true``, so such a URL is rewritten into that form instead
    of the parameters being dropped.
    """
    path = os.fspath(db_path)
    prefix = next((p for p in _PREFIXES if path.startswith(p)), None)
    if prefix is None and path.startswith("sqlite"):
        return path  # another URL form (``sqlite://`` in memory): SQLAlchemy reads it
    rest = path if prefix is None else path[len(prefix) :]
    name, has_query, query = rest.partition("?")
    prefix = prefix or _PREFIXES[0]
    if not has_query or "uri=true" in query.lower().split("&"):
        return f"{prefix}{rest}"
    name = name if name.startswith("file:") else f"file:{name}"
    return f"{prefix}{name}?{query}&uri=true"
