"""Memory services (``google.adk.memory`` → ``adk_runtime.memory``)."""

from adk_runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from adk_runtime.memory.in_memory import InMemoryMemoryService

__all__ = ["BaseMemoryService", "InMemoryMemoryService", "MemoryEntry", "SearchMemoryResponse"]
