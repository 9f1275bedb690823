"""Memory services (``google.adk.memory`` → ``adk_runtime.memory``)."""

from adk_runtime.memory.base import BaseMemoryService, MemoryEntry, SearchMemoryResponse
from adk_runtime.memory.in_memory import InMemoryMemoryService
from adk_runtime.memory.registry import memory_service_from_url, register_memory_backend

__all__ = [
    "BaseMemoryService",
    "InMemoryMemoryService",
    "MemoryEntry",
    "SearchMemoryResponse",
    "memory_service_from_url",
    "register_memory_backend",
]
