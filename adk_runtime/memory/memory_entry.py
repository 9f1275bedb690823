"""``google.adk.memory.memory_entry`` → here: one remembered event."""

from adk_runtime.memory.base import MemoryEntry

__all__ = ["MemoryEntry"]
