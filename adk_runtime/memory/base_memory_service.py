"""``google.adk.memory.base_memory_service`` → here: the memory service contract."""

from adk_runtime.memory.base import BaseMemoryService, SearchMemoryResponse

__all__ = ["BaseMemoryService", "SearchMemoryResponse"]
