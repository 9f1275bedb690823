"""URL schemes: the one parser, the known families, and the registry with lazy imports.

Storage is chosen by URL everywhere (sessions, artifacts, memory, the CLI, Alembic). This
module is the only place that reads a scheme out of a URL (:func:`url_scheme`) and that lists
which schemes are SQL (:data:`SQL_SCHEMES`) or Redis (:data:`REDIS_SCHEMES`). Each backend
reads the options of a URL's query itself and refuses a name it does not know with
:func:`unknown_option` (the valid names, and the nearest one).

Each :class:`UrlRegistry` maps a URL scheme to ``"module:Class"`` and the pip requirement
that provides it; the class is imported only when a URL asks for it and builds itself through
its ``from_url(url, **kwargs)`` class method. ``sqlite+aiosqlite`` falls back to ``sqlite``.
A service's registry module offers its ``register`` and ``schemes`` bound methods under the
service's public names (``register_session_backend``, ``supported_schemes``), as the stdlib's
``random`` offers its ``Random`` instance's.
"""

from __future__ import annotations

import difflib
import importlib
import re
from collections.abc import Collection, Iterable
from typing import Any, Generic, Protocol, TypeVar, cast
from urllib.parse import parse_qsl, urlsplit

from adk_runtime.errors import ConfigurationError, redact_url

__all__ = [
    "REDIS_SCHEMES",
    "SQL_SCHEMES",
    "UrlRegistry",
    "check_query_options",
    "is_sql_url",
    "query_option_names",
    "unknown_option",
    "url_dialect",
    "url_scheme",
]

SQL_SCHEMES = ("sqlite", "sqlite+aiosqlite", "postgresql", "postgresql+asyncpg", "postgres")
"""URL schemes of the SQL stores (SQLite and PostgreSQL; normalized to the async drivers)."""

REDIS_SCHEMES = ("redis", "rediss", "redis+cluster", "rediss+cluster")
"""URL schemes of the Redis stores (one server, or a Redis Cluster through any node)."""

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")


def url_scheme(url: object) -> str:
    """The lower-case scheme of ``url`` (``"postgresql+asyncpg"``), or ``""`` if it has none."""
    head, sep, _ = str(url).partition(":")
    if not sep or not _SCHEME.fullmatch(head):
        return ""
    return head.lower()


def url_dialect(url: object) -> str:
    """The scheme without its driver part (``"postgresql"`` for ``postgresql+asyncpg``)."""
    return url_scheme(url).split("+", 1)[0]


def is_sql_url(url: object) -> bool:
    """Whether ``url`` names a SQL store."""
    return url_dialect(url) in {scheme.split("+", 1)[0] for scheme in SQL_SCHEMES}


def query_option_names(url: str) -> list[str]:
    """The names of the options in ``url``'s query, in order (``[]`` without a query)."""
    try:
        query = urlsplit(url).query
    except ValueError:
        return []
    return [name for name, _ in parse_qsl(query, keep_blank_values=True)]


def unknown_option(url: str, name: str, valid: Iterable[str], *, what: str) -> ConfigurationError:
    """The error for option ``name`` in the query of ``url`` (a ``what`` URL) that nothing reads.

    It names the option, the nearest valid name (a close spelling, or a name it begins) and
    every valid name.
    """
    names = sorted(set(valid))
    close = difflib.get_close_matches(name, names, n=1) or [
        known for known in names if len(name) >= 3 and known.startswith(name)
    ]
    hint = f" Did you mean {close[0]!r}?" if close else ""
    known = f" Valid options: {', '.join(names)}." if names else " It takes no options."
    return ConfigurationError(
        f"Unknown option {name!r} in the {what} URL {redact_url(url)!r}.{hint}{known}"
    )


def check_query_options(url: str, valid: Collection[str], *, what: str) -> None:
    """Raise :func:`unknown_option` for the first option of ``url``'s query not in ``valid``."""
    for name in query_option_names(url):
        if name not in valid:
            raise unknown_option(url, name, valid, what=what)


T_co = TypeVar("T_co", covariant=True)


class _FromUrl(Protocol[T_co]):
    def from_url(self, url: str, **kwargs: Any) -> T_co: ...


class UrlRegistry(Generic[T_co]):
    """URL scheme → lazily imported class that builds a ``what`` (e.g. "artifact service")."""

    def __init__(self, what: str, backends: dict[str, tuple[str, str]]) -> None:
        """Start with ``backends``: scheme → (``"module:Class"``, pip requirement)."""
        self.what = what
        self._backends = dict(backends)

    def register(self, scheme: str, target: str, requirement: str = "adk-runtime") -> None:
        """Map a URL scheme to ``"module:Class"`` (the class needs a ``from_url`` class method).

        ``requirement`` is what ``pip install`` needs when the module cannot be imported.
        """
        self._backends[scheme.lower()] = (target, requirement)

    def schemes(self) -> list[str]:
        """Return the URL schemes the registry can build from, sorted."""
        return sorted(self._backends)

    def _lookup(self, url: Any) -> tuple[str, str]:
        scheme = url_scheme(url) if isinstance(url, str) else ""
        if not scheme or "://" not in url:
            raise ConfigurationError(
                f"{redact_url(str(url))!r} is not a URL for a {self.what}; expected one of: "
                + ", ".join(f"{scheme}://…" for scheme in self.schemes())
            )
        entry = self._backends.get(scheme) or self._backends.get(url_dialect(url))
        if entry is None:
            raise ConfigurationError(
                f"Unknown {self.what} URL scheme {scheme!r} in {redact_url(url)!r}. "
                f"Supported schemes: {', '.join(self.schemes())}."
            )
        return entry

    def build(self, url: str, **kwargs: Any) -> T_co:
        """Import the class the URL's scheme names and build it from the URL."""
        target, requirement = self._lookup(url)
        module_name, _, class_name = target.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigurationError(
                f"The {self.what} for {redact_url(url)!r} cannot be imported "
                f"({exc.name} is missing). Install it with: pip install '{requirement}'"
            ) from None
        factory = cast(_FromUrl[T_co], getattr(module, class_name))
        return factory.from_url(url, **kwargs)
