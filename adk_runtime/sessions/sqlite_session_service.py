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


class SqliteSessionService(DatabaseSessionService):
    """A ``DatabaseSessionService`` on the SQLite file ``db_path`` (``":memory:"`` allowed)."""

    def __init__(self, db_path: str | os.PathLike[str], **kwargs: Any) -> None:
        """Open the sessions stored in ``db_path``; ``kwargs`` go to ``DatabaseSessionService``.

        A ``sqlite://`` or ``sqlite+aiosqlite://`` URL is accepted as well as a path.
        """
        super().__init__(sqlite_url(db_path), **kwargs)


def sqlite_url(db_path: str | os.PathLike[str]) -> str:
    """The ``sqlite+aiosqlite`` URL of a file path (a ``sqlite`` URL is returned unchanged)."""
    path = os.fspath(db_path)
    if path.startswith("sqlite:") or path.startswith("sqlite+aiosqlite:"):
        return path
    return f"sqlite+aiosqlite:///{path}"
