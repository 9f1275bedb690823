"""Sessions and session services (``google.adk.sessions`` → ``adk_runtime.sessions``)."""

from adk_runtime.sessions.base import (
    BaseSessionService,
    GetSessionConfig,
    ListSessionsResponse,
)
from adk_runtime.sessions.memory import InMemorySessionService
from adk_runtime.sessions.registry import (
    register_session_backend,
    session_service_from_url,
    supported_schemes,
)
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import State

__all__ = [
    "BaseSessionService",
    "GetSessionConfig",
    "InMemorySessionService",
    "ListSessionsResponse",
    "Session",
    "State",
    "register_session_backend",
    "session_service_from_url",
    "supported_schemes",
]
