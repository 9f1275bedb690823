"""Storage by configuration: one URL picks the session backend.

The guarantees kept here are contract §9 (docs/explanation/contract.md).

Backends register a URL scheme with the import path of their class and the extra that
installs them (:class:`~adk_runtime._url_registry.UrlRegistry`, shared with the artifact and
memory services); the class is imported only when a URL asks for it and builds itself from the
URL through its ``from_url(url, **kwargs)`` class method.
"""

from __future__ import annotations

from typing import Any

from adk_runtime._url_registry import REDIS_SCHEMES, SQL_SCHEMES, UrlRegistry
from adk_runtime.sessions.base import BaseSessionService

__all__ = ["register_session_backend", "session_service_from_url", "supported_schemes"]

_DATABASE = "adk_runtime.sessions.sql:DatabaseSessionService"
_REDIS = "adk_runtime.sessions.redis:RedisSessionService"
_SPANNER = "adk_runtime.sessions.spanner:SpannerSessionService"

_REGISTRY: UrlRegistry[BaseSessionService] = UrlRegistry(
    "session service",
    {
        "memory": ("adk_runtime.sessions.memory:InMemorySessionService", "adk-runtime"),
        **{scheme: (_REDIS, "adk-runtime[redis]") for scheme in REDIS_SCHEMES},
        **{scheme: (_DATABASE, "adk-runtime") for scheme in SQL_SCHEMES},
        "spanner": (_SPANNER, "adk-runtime[spanner]"),
    },
)

register_session_backend = _REGISTRY.register
"""Map a URL scheme (e.g. ``"sqlite+aiosqlite"``) to ``"module:Class"`` (with ``from_url``)."""
supported_schemes = _REGISTRY.schemes
"""Return the URL schemes a session service can be built from, sorted."""


def session_service_from_url(url: str, **kwargs: Any) -> BaseSessionService:
    """Build the session service a URL names.

    Args:
        url: ``memory://``, ``sqlite+aiosqlite:///path.db``, ``postgresql+asyncpg://…``,
            ``redis://…`` or ``spanner:///projects/P/instances/I/databases/D`` (every form:
            ``docs/reference/urls.md``).
        **kwargs: Passed to the backend's constructor (e.g. ``auto_migrate=True``).

    Raises:
        ConfigurationError: The scheme is unknown, or the backend cannot be imported.
    """
    return _REGISTRY.build(url, **kwargs)
