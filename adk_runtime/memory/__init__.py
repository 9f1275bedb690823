"""Memory services (``google.adk.memory`` → ``adk_runtime.memory``)."""

from adk_runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse

__all__ = ["BaseMemoryService", "MemoryEntry", "SearchMemoryResponse"]
