"""The driver options a database URL's query may carry: each name checked, each value read.

What is left of the query once the pool knobs (:mod:`.pool`) and the service's own options are
taken out goes to the driver through SQLAlchemy, which would let a misspelt name through: asyncpg
fails at the first connection with a ``TypeError``, SQLite drops it with a warning, and asyncpg
gets every value as text (``timeout=10`` then fails at connect). Here a name neither the pool,
the service nor the driver takes is a :class:`~adk_runtime.errors.ConfigurationError` naming the
nearest valid one, and a value that does not read as its option's type is one too.

- **SQLite**: ``uri``, ``detect_types``, ``check_same_thread``, ``cached_statements`` (SQLAlchemy
  reads them); with ``uri=true`` SQLite's own URI parameters too (``mode=ro``, ``cache``…). The
  busy timeout and the isolation level are the runtime's own (see ``_sqlite_settings``).
- **PostgreSQL**: asyncpg's connection options (``ssl`` — or libpq's name ``sslmode`` —,
  ``timeout``, ``command_timeout``, ``target_session_attrs``…), passed as typed connect
  arguments; ``host`` (several hosts) stays in the URL for SQLAlchemy.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from sqlalchemy.engine import make_url

from adk_runtime._url_registry import unknown_option
from adk_runtime.errors import ConfigurationError, redact_url

__all__ = ["split_driver_options"]

_TRUE = frozenset({"true", "yes", "on", "y", "t", "1"})
_FALSE = frozenset({"false", "no", "off", "n", "f", "0"})
_SSL_MODES = ("disable", "allow", "prefer", "require", "verify-ca", "verify-full")


def _flag(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in _TRUE | _FALSE:
        return lowered in _TRUE
    raise ValueError("true or false")


def _ssl_mode(text: str) -> str:
    if text in _SSL_MODES:
        return text
    raise ValueError("one of " + ", ".join(_SSL_MODES))


def _number(kind: Callable[[str], float]) -> Callable[[str], float]:
    def read(text: str) -> float:
        value = kind(text)
        if not 0 <= value < float("inf"):
            raise ValueError
        return value

    return read


_SQLITE: Mapping[str, Callable[[str], Any]] = {
    "uri": _flag,
    "detect_types": _number(int),
    "check_same_thread": _flag,
    "cached_statements": _number(int),
}
_SQLITE_URI = ("cache", "immutable", "mode", "nolock", "psow", "vfs")
"""SQLite's own URI parameters, read by SQLite when ``uri=true``."""

_POSTGRES: Mapping[str, Callable[[str], Any]] = {
    "ssl": _ssl_mode,
    "sslmode": _ssl_mode,
    "direct_tls": _flag,
    "timeout": _number(float),
    "command_timeout": _number(float),
    "max_cached_statement_lifetime": _number(int),
    "max_cacheable_statement_size": _number(int),
    "prepared_statement_cache_size": _number(int),
    "target_session_attrs": str,
    "passfile": str,
    "krbsrvname": str,
    "gsslib": str,
}
_POSTGRES_URL = ("host",)
"""Left in the URL for SQLAlchemy: ``?host=a:5432&host=b:5432`` names several servers."""
_RENAMED = {"sslmode": "ssl"}


def _read(url: str, name: str, text: str, reader: Callable[[str], Any]) -> Any:
    try:
        return reader(text)
    except ValueError as error:
        wanted = str(error) if reader in (_flag, _ssl_mode) else "a number, 0 or more"
        raise ConfigurationError(
            f"{name}={text!r} in {redact_url(url)!r} is not valid: it must be {wanted}."
        ) from None


def split_driver_options(
    url: str, known: Collection[str], *, what: str
) -> tuple[str, dict[str, Any]]:
    """Check the options left in ``url``'s query; return the URL and the connect arguments.

    Args:
        url: A normalized database URL, the pool knobs and the service's options taken out.
        known: The pool knobs and the service's options (named, with the driver's, when an
            option is unknown).
        what: What the URL is for, in a message (``"SQLite"``, ``"PostgreSQL"``).

    Returns:
        The URL without the options passed as connect arguments (PostgreSQL's), and those
        arguments read from their text (``sslmode`` as asyncpg's ``ssl``).

    Raises:
        ConfigurationError: An option no one takes, or a value that does not read.
    """
    parsed = make_url(url)
    query = {name: raw[-1] if isinstance(raw, tuple) else raw for name, raw in parsed.query.items()}
    if not query:
        return url, {}
    sqlite = parsed.get_backend_name() == "sqlite"
    readers = _SQLITE if sqlite else _POSTGRES
    passed: tuple[str, ...] = _POSTGRES_URL
    if sqlite:
        uri = "uri" in query and _read(url, "uri", query["uri"], _flag)
        passed = _SQLITE_URI if uri else ()
    for name in query:
        if sqlite and name in _SQLITE_URI and name not in passed:
            raise ConfigurationError(
                f"{name!r} in {redact_url(url)!r} is a SQLite URI parameter: add uri=true to "
                "the query for SQLite to read it."
            )
        if name not in readers and name not in passed:
            raise unknown_option(url, name, (*known, *readers, *passed), what=what)
    read = [name for name in query if name in readers]
    values = {name: _read(url, name, query[name], readers[name]) for name in read}
    if sqlite:  # SQLAlchemy reads them from the URL (the values are checked above)
        return url, {}
    connect_args = {_RENAMED.get(name, name): value for name, value in values.items()}
    stripped = parsed.difference_update_query(list(values))
    return stripped.render_as_string(hide_password=False), connect_args
