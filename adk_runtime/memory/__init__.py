"""Memory services (``google.adk.memory`` → ``adk_runtime.memory``).

``DatabaseMemoryService`` and ``SqliteMemoryService`` (SQLAlchemy) and ``SpannerMemoryService``
(the ``[spanner]`` extra) are imported on first use.
"""

from typing import TYPE_CHECKING

from adk_runtime._lazy import lazy_getattr
from adk_runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from adk_runtime.memory.in_memory import InMemoryMemoryService
from adk_runtime.memory.registry import memory_service_from_url, register_memory_backend

if TYPE_CHECKING:
    from adk_runtime.memory.database import DatabaseMemoryService
    from adk_runtime.memory.spanner import SpannerMemoryService
    from adk_runtime.memory.sqlite import SqliteMemoryService

__all__ = [
    "BaseMemoryService",
    "DatabaseMemoryService",
    "InMemoryMemoryService",
    "MemoryEntry",
    "SearchMemoryResponse",
    "SpannerMemoryService",
    "SqliteMemoryService",
    "memory_service_from_url",
    "register_memory_backend",
]

__getattr__ = lazy_getattr(
    __name__,
    {
        "DatabaseMemoryService": "adk_runtime.memory.database",
        "SpannerMemoryService": "adk_runtime.memory.spanner",
        "SqliteMemoryService": "adk_runtime.memory.sqlite",
    },
)
