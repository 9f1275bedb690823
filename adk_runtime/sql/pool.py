"""Connection pool settings for a server: sized once, no churn, waiting rather than failing.

SQLAlchemy's default pool (5 connections + 10 "overflow" ones that are closed as soon as they
are returned) opens and closes a connection per operation as soon as more than 5
conversations are active: throughput then falls as concurrency rises. The runtime's defaults
keep a fixed set of connections instead; callers beyond it wait for one (up to
``pool_timeout`` seconds, then :class:`~adk_runtime.errors.BackendUnavailableError`).

Every knob is accepted as a keyword argument or as a URL query parameter
(``postgresql+asyncpg://app@db/app?pool_size=20&pool_timeout=5``); keyword arguments win. The
query parameters are removed from the URL before it reaches the driver; what the driver gets of
the query is checked by :mod:`._driver_options`.

=========================  ===========  ========================================================
option                     default      meaning
=========================  ===========  ========================================================
``pool_size``              10           connections kept open
``max_overflow``           0            extra connections opened under load, closed when idle
``pool_timeout``           30           seconds to wait for a free connection
``pool_recycle``           1800         seconds after which a connection is replaced
``statement_cache_size``   100          asyncpg's prepared statements per connection (0 behind
                                        PgBouncer in transaction mode before 1.21); PostgreSQL
=========================  ===========  ========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy.engine import make_url

from adk_runtime.errors import ConfigurationError

__all__ = ["POOL_DEFAULTS", "parse_count", "split_pool_options", "take_query_option", "url_knobs"]

POOL_DEFAULTS: Mapping[str, int] = {
    "pool_size": 10,
    "max_overflow": 0,
    "pool_timeout": 30,
    "pool_recycle": 1800,
}
"""Pool options of every engine but an in-memory SQLite database's (one shared connection)."""

_KNOBS: dict[str, type] = {
    "pool_size": int,
    "max_overflow": int,
    "pool_timeout": float,
    "pool_recycle": int,
    "statement_cache_size": int,
}


_POSTGRES_ONLY = ("statement_cache_size",)


def url_knobs(backend: str) -> tuple[str, ...]:
    """The knobs a URL of ``backend`` (``"sqlite"``, ``"postgresql"``) may carry in its query."""
    if backend == "postgresql":
        return tuple(_KNOBS)
    return tuple(name for name in _KNOBS if name not in _POSTGRES_ONLY)


def _number(name: str, raw: Any) -> int | float:
    kind = _KNOBS[name]
    try:
        value: int | float = kind(raw)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{name}={raw!r} is not a number.") from None
    if isinstance(raw, bool) or value < 0 or (name == "pool_size" and value < 1):
        raise ConfigurationError(f"{name}={raw!r} is out of range.")
    return value


def _sqlite_memory(backend: str, database: str | None) -> bool:
    # One shared connection (StaticPool): no pool to size.
    return backend == "sqlite" and (database in (None, "", ":memory:") or "mode=memory" in database)


def split_pool_options(url: str, kwargs: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Take the pool knobs out of ``url``'s query and merge them with ``kwargs``.

    Returns:
        The URL without the knobs, and the engine keyword arguments: the defaults, then the
        URL's knobs, then ``kwargs`` (which win). ``statement_cache_size`` becomes asyncpg's
        ``connect_args``.

    Raises:
        ConfigurationError: A knob is not a number, or is negative.
    """
    parsed = make_url(url)
    knobs = url_knobs(parsed.get_backend_name())
    from_query = {k: v for k, v in parsed.query.items() if k in knobs}
    stripped = parsed.difference_update_query(list(from_query))
    options: dict[str, Any] = {}
    if not _sqlite_memory(parsed.get_backend_name(), parsed.database):
        options.update(POOL_DEFAULTS)
    for name, raw in from_query.items():
        options[name] = _number(name, raw[-1] if isinstance(raw, tuple) else raw)
    options.update({k: _number(k, v) if k in _KNOBS else v for k, v in kwargs.items()})
    if "statement_cache_size" in options and parsed.get_backend_name() == "postgresql":
        size = options.pop("statement_cache_size")
        connect_args = dict(options.get("connect_args", {}))
        connect_args.setdefault("statement_cache_size", size)
        # SQLAlchemy's own cache of asyncpg prepared statements, for its statements.
        connect_args.setdefault("prepared_statement_cache_size", size)
        options["connect_args"] = connect_args
    if not from_query:
        return url, options
    return stripped.render_as_string(hide_password=False), options


def take_query_option(url: str, name: str) -> tuple[str, str | None]:
    """Remove query parameter ``name`` from ``url``; return the URL and its last value."""
    parsed = make_url(url)
    raw = parsed.query.get(name)
    if raw is None:
        return url, None
    value = raw[-1] if isinstance(raw, tuple) else raw
    return parsed.difference_update_query([name]).render_as_string(hide_password=False), value


def parse_count(name: str, raw: str) -> int:
    """Parse a positive integer option given as text.

    Raises:
        ConfigurationError: It is not a positive integer.
    """
    try:
        value = int(raw)
    except ValueError:
        raise ConfigurationError(f"{name}={raw!r} is not a whole number.") from None
    if value < 1:
        raise ConfigurationError(f"{name}={raw!r} must be positive.")
    return value
