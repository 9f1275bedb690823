"""``google.adk.sessions.in_memory_session_service`` → here: the in-process session store."""

from adk_runtime.sessions.memory import InMemorySessionService

__all__ = ["InMemorySessionService"]
