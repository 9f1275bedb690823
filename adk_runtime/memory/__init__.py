"""Memory services (``google.adk.memory`` → ``adk_runtime.memory``).

``DatabaseMemoryService`` and ``SqliteMemoryService`` (SQLAlchemy) are imported on first use.
"""

from typing import TYPE_CHECKING, Any

from adk_runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from adk_runtime.memory.in_memory import InMemoryMemoryService
from adk_runtime.memory.registry import memory_service_from_url, register_memory_backend

if TYPE_CHECKING:
    from adk_runtime.memory.database import DatabaseMemoryService
    from adk_runtime.memory.sqlite import SqliteMemoryService

__all__ = [
    "BaseMemoryService",
    "DatabaseMemoryService",
    "InMemoryMemoryService",
    "MemoryEntry",
    "SearchMemoryResponse",
    "SqliteMemoryService",
    "memory_service_from_url",
    "register_memory_backend",
]


def __getattr__(name: str) -> Any:
    if name == "DatabaseMemoryService":
        from adk_runtime.memory.database import DatabaseMemoryService

        return DatabaseMemoryService
    if name == "SqliteMemoryService":
        from adk_runtime.memory.sqlite import SqliteMemoryService

        return SqliteMemoryService
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
