"""``google.adk.memory.in_memory_memory_service`` → here: the in-process keyword memory."""

from adk_runtime.memory.in_memory import InMemoryMemoryService

__all__ = ["InMemoryMemoryService"]
