"""The options of the Spanner session service, and those a URL carries.

``spanner:///projects/P/instances/I/databases/D?emulator_host=127.0.0.1:9010&max_sessions=50``:
the path names the database; the query may set :data:`URL_OPTIONS`, any other name is refused
naming the nearest valid one. ``$SPANNER_EMULATOR_HOST`` (the variable Google's clients read)
points the service at an emulator when ``emulator_host`` is not given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from adk_runtime._url_registry import unknown_option
from adk_runtime.errors import ConfigurationError

__all__ = [
    "STORE_OPTIONS",
    "URL_OPTIONS",
    "database_path",
    "emulator_host",
    "positive_float",
    "positive_int",
    "split_url",
    "store_url",
]

URL_OPTIONS: dict[str, Callable[[str], Any]] = {
    "emulator_host": str,
    "max_sessions": int,
    "timeout": float,
    "cache_bytes": int,
    "ttl_seconds": float,
}
"""The session service's options a URL's query may set, and how each is read from text."""

STORE_OPTIONS = {name: URL_OPTIONS[name] for name in ("emulator_host", "max_sessions", "timeout")}
"""The options of the artifact and memory stores' URLs (no session cache)."""

_DATABASE = re.compile(
    r"projects/[a-z][a-z0-9\-.:]{0,62}/instances/[a-z][a-z0-9\-]{0,63}"
    r"/databases/[a-z][a-z0-9_\-]{0,29}"
)
_EXAMPLE = "spanner:///projects/PROJECT/instances/INSTANCE/databases/DATABASE"


def database_path(path: str) -> str:
    """``path`` if it names a database (``projects/P/instances/I/databases/D``)."""
    if not isinstance(path, str) or not _DATABASE.fullmatch(path):
        raise ConfigurationError(
            f"{path!r} is not a Spanner database path: expected "
            "projects/PROJECT/instances/INSTANCE/databases/DATABASE."
        )
    return path


def split_url(
    url: str, valid: Mapping[str, Callable[[str], Any]] = URL_OPTIONS
) -> tuple[str, dict[str, Any]]:
    """The database path of a ``spanner://`` URL and the options of its query.

    ``valid``: the options the query may set, and how each is read from text.

    Raises:
        ConfigurationError: The URL is malformed, names no database, or an option is unknown
            or not a number.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        raise ConfigurationError(f"{url!r} is not a valid Spanner URL ({_EXAMPLE}).") from None
    if parts.netloc:
        raise ConfigurationError(
            f"{url!r}: a Spanner URL has no host ({_EXAMPLE}; an emulator is given with "
            "?emulator_host=HOST:PORT)."
        )
    options: dict[str, Any] = {}
    for name, text in parse_qsl(parts.query, keep_blank_values=True):
        if name not in valid:
            raise unknown_option(url, name, valid, what="Spanner")
        try:
            options[name] = valid[name](text)
        except ValueError:
            raise ConfigurationError(f"{name}={text!r} is not a number.") from None
    return database_path(parts.path.lstrip("/")), options


def store_url(url: str) -> str:
    """``url`` with only the options of :data:`STORE_OPTIONS` (for an artifact store beside it)."""
    head, _, query = url.partition("?")
    kept = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k in STORE_OPTIONS]
    return f"{head}?{urlencode(kept, safe=':/')}" if kept else head


def emulator_host(given: str | None) -> str | None:
    """The emulator to use: ``given``, else ``$SPANNER_EMULATOR_HOST``, else None (Spanner)."""
    host = given if given is not None else os.environ.get("SPANNER_EMULATOR_HOST")
    return host or None


def positive_int(name: str, value: Any) -> int:
    """``value`` if it is a positive integer, else ConfigurationError."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{name} must be a positive integer.")
    return value


def positive_float(name: str, value: Any) -> float:
    """``value`` if it is a positive number of seconds, else ConfigurationError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e6:
        raise ConfigurationError(f"{name} must be a positive number of seconds.")
    return float(value)
