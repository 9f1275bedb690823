"""Database URLs: map the accepted spellings to the async driver we use, reject the rest.

``sqlite:///path.db`` becomes ``sqlite+aiosqlite:///path.db``; ``postgresql://…`` and
``postgres://…`` become ``postgresql+asyncpg://…``. A synchronous driver (``+psycopg2``,
``+pysqlite``…) or any other dialect raises :class:`~adk_runtime.errors.DatabaseUrlError`
that names the URL to use instead. Passwords never appear in a message.
"""

from __future__ import annotations

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from adk_runtime._url_registry import SQL_SCHEMES, url_scheme
from adk_runtime.errors import DatabaseUrlError, redact_url

__all__ = [
    "ASYNC_DRIVERS",
    "SESSION_OPTIONS",
    "SQL_SCHEMES",
    "is_sqlite",
    "normalize_url",
    "sqlite_is_memory",
]

SQLITE = "sqlite+aiosqlite"
POSTGRES = "postgresql+asyncpg"

# What each accepted dialect is spelled as, mapped to the async driver name.
_ASYNC_DRIVERS: dict[str, str] = {"sqlite": SQLITE, "postgresql": POSTGRES, "postgres": POSTGRES}
_ACCEPTED = {"sqlite": "aiosqlite", "postgresql": "asyncpg", "postgres": "asyncpg"}

ASYNC_DRIVERS = {"sqlite": "aiosqlite", "postgresql": "asyncpg"}
"""The async driver of each SQL dialect (SQLAlchemy's dialect name → driver name)."""

SESSION_OPTIONS = ("cache_bytes", "ttl_seconds")
"""The session service's options a database URL's query may carry (read by the service, never
by the engine): the ``db`` commands and Alembic, given the session URL, leave them out."""


def _suggest(url: str, drivername: str) -> str:
    rest = url.split(":", 1)[1] if ":" in url else ""
    return redact_url(f"{drivername}:{rest}")


def normalize_url(url: str | URL) -> str:
    """Return ``url`` spelled for the async driver (``sqlite+aiosqlite`` / ``postgresql+asyncpg``).

    Args:
        url: A database URL, e.g. ``sqlite:///app.db`` or ``postgresql://user@host/db``.

    Returns:
        The URL string with the async driver (the password kept, for the engine only).

    Raises:
        DatabaseUrlError: Not a URL, a synchronous driver, or a dialect we do not support.
    """
    text = url.render_as_string(hide_password=False) if isinstance(url, URL) else str(url)
    dialect, _, driver = url_scheme(text).partition("+")
    if dialect not in _ASYNC_DRIVERS:
        raise DatabaseUrlError(
            f"{redact_url(text)!r} is not a supported database URL. Use "
            "'sqlite+aiosqlite:///path.db' or 'postgresql+asyncpg://user@host/dbname'."
        )
    target = _ASYNC_DRIVERS[dialect]
    if driver and driver != _ACCEPTED[dialect]:
        raise DatabaseUrlError(
            f"{redact_url(text)!r} uses the synchronous or unsupported driver {driver!r}; "
            f"adk_runtime needs an async driver. Use {_suggest(text, target)!r}."
        )
    normalized = f"{target}:{text.split(':', 1)[1]}"
    try:
        parsed = make_url(normalized)
    except ArgumentError:
        raise DatabaseUrlError(f"{redact_url(text)!r} is not a valid database URL.") from None
    if target == SQLITE and (parsed.host or parsed.username or parsed.port):
        raise DatabaseUrlError(_sqlite_with_host(text, parsed.host or ""))
    return normalized


def _sqlite_with_host(text: str, host: str) -> str:
    """What to write instead of ``sqlite://name.db`` (two slashes: ``name.db`` is a host)."""
    scheme, _, rest = text.partition("://")
    relative = rest.rsplit("@", 1)[-1]
    return (
        f"{redact_url(text)!r} names a host ({host!r}); a SQLite URL names a file after three "
        f"slashes: {f'{scheme}:///{relative}'!r} for a path relative to the current directory, "
        f"{f'{scheme}:////abs/path.db'!r} (four) for an absolute one."
    )


def is_sqlite(url: str) -> bool:
    """Whether a normalized URL names a SQLite database."""
    return url.startswith(SQLITE + ":")


def sqlite_is_memory(url: str) -> bool:
    """Whether a normalized SQLite URL names an in-memory database."""
    database = make_url(url).database
    return database in (None, "", ":memory:") or "mode=memory" in url
