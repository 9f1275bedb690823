"""Memory storage by configuration: one URL picks the memory service.

``memory://`` is :class:`~adk_runtime.memory.InMemoryMemoryService`;
``sqlite+aiosqlite:///x.db`` and ``postgresql+asyncpg://…`` are ``DatabaseMemoryService``;
``spanner:///projects/P/instances/I/databases/D`` is ``SpannerMemoryService``.
"""

from __future__ import annotations

from typing import Any

from adk_runtime._url_registry import SQL_SCHEMES, UrlRegistry
from adk_runtime.memory.base import BaseMemoryService

__all__ = ["memory_service_from_url", "register_memory_backend", "supported_schemes"]

_DATABASE = "adk_runtime.memory.database:DatabaseMemoryService"

_REGISTRY: UrlRegistry[BaseMemoryService] = UrlRegistry(
    "memory service",
    {
        "memory": ("adk_runtime.memory.in_memory:InMemoryMemoryService", "adk-runtime"),
        **{scheme: (_DATABASE, "adk-runtime") for scheme in SQL_SCHEMES},
        "spanner": ("adk_runtime.memory.spanner:SpannerMemoryService", "adk-runtime[spanner]"),
    },
)

register_memory_backend = _REGISTRY.register
"""Map a URL scheme to ``"module:Class"`` (the class needs a ``from_url`` class method)."""
supported_schemes = _REGISTRY.schemes
"""Return the URL schemes a memory service can be built from, sorted."""


def memory_service_from_url(url: str, **kwargs: Any) -> BaseMemoryService:
    """Build the memory service a URL names.

    Args:
        url: ``memory://``, ``sqlite+aiosqlite:///path.db``, ``postgresql+asyncpg://…`` or
            ``spanner:///projects/P/instances/I/databases/D``.
        **kwargs: Passed to the service's constructor (e.g. ``auto_migrate=True``).

    Raises:
        ConfigurationError: The scheme is unknown or its service cannot be imported.
    """
    return _REGISTRY.build(url, **kwargs)
