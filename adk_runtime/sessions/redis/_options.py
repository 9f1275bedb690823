"""The options of a Redis session service: checked values, and those a URL's query carries.

``redis://host/0?key_prefix=myapp:&ttl_seconds=86400`` sets ``key_prefix`` and ``ttl_seconds``
(and any option of :data:`URL_OPTIONS`); what is left of the query goes on to redis-py, which
takes the options of :data:`DRIVER_OPTIONS`. Any other name is refused here, naming the nearest
valid one: redis-py would pass it on to its connection class, which fails with a ``TypeError``
at the first command. The path is the database number (``/0``) or nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from redis.asyncio.connection import URL_QUERY_ARGUMENT_PARSERS

from adk_runtime._url_registry import unknown_option
from adk_runtime.errors import ConfigurationError, redact_url
from adk_runtime.sessions.retention import check_ttl_seconds

__all__ = [
    "DRIVER_OPTIONS",
    "URL_OPTIONS",
    "count",
    "describe",
    "positive_int",
    "split_url",
    "ttl_ms",
]

URL_OPTIONS: dict[str, Callable[[str], Any]] = {
    "key_prefix": str,
    "ttl_seconds": float,
    "max_connections": int,
    "pool_timeout": float,
    "cache_bytes": int,
    "wait_replicas": int,
    "wait_timeout_ms": int,
}
"""The service options a URL's query may set, and how each is read from text."""

DRIVER_OPTIONS: frozenset[str] = frozenset(URL_QUERY_ARGUMENT_PARSERS) | {
    "client_name",
    "ssl_ca_certs",
    "ssl_ca_path",
    "ssl_cert_reqs",
    "ssl_certfile",
    "ssl_ciphers",
    "ssl_keyfile",
    "ssl_password",
}
"""The query options redis-py takes from a URL: those it reads itself, and the connection's
text options (a client name, the TLS files and checks)."""


def split_url(url: str) -> tuple[str, dict[str, Any]]:
    """``url`` without the service's options, and those options (read from their text).

    The URL is returned as given when its query holds no option.

    Raises:
        ConfigurationError: The URL is malformed, or an option is not a number.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        raise ConfigurationError(f"{redact_url(url)!r} is not a valid Redis URL.") from None
    query = parse_qsl(parts.query, keep_blank_values=True)
    for key, _ in query:
        if key not in URL_OPTIONS and key not in DRIVER_OPTIONS:
            raise unknown_option(url, key, (*URL_OPTIONS, *DRIVER_OPTIONS), what="Redis")
    _check_database(url, parts.scheme, parts.path)
    options = {key: _parse(key, value) for key, value in query if key in URL_OPTIONS}
    if not options:
        return url, options
    rest = urlencode([(key, value) for key, value in query if key not in URL_OPTIONS])
    return urlunsplit(parts._replace(query=rest)), options


def _check_database(url: str, scheme: str, path: str) -> None:  # path: never in a message
    """Refuse a path that is not a database number (redis-py would use database 0 instead)."""
    number = path.strip("/")
    if scheme.lower() == "unix" or not number or number.isdecimal():
        return
    raise ConfigurationError(
        f"{redact_url(url)!r}: the path of a Redis URL is the database number (e.g. /0) or nothing."
    )


def _parse(name: str, text: str) -> Any:
    try:
        return URL_OPTIONS[name](text)
    except ValueError:
        raise ConfigurationError(f"{name}={text!r} is not a number.") from None


def count(name: str, value: Any) -> int:
    """``value`` if it is a whole number (0 or more), else ConfigurationError."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{name} must be a whole number (0 or more).")
    return value


def positive_int(name: str, value: Any) -> int:
    """``value`` if it is a positive integer, else ConfigurationError."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"{name} must be a positive integer.")
    return value


def ttl_ms(ttl_seconds: float | None) -> int:
    """``ttl_seconds`` checked, in milliseconds (0: sessions never expire)."""
    ttl = check_ttl_seconds(ttl_seconds)
    return 0 if ttl is None else round(ttl * 1000)


def describe(client: Any) -> str:
    """Where a client given to the service points (for messages; no password)."""
    kwargs = getattr(getattr(client, "connection_pool", None), "connection_kwargs", {})
    if "path" in kwargs:
        return f"unix://{kwargs['path']}"
    return f"redis://{kwargs.get('host', '?')}:{kwargs.get('port', '?')}/{kwargs.get('db', 0)}"
