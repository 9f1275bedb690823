"""Sessions and session services (``google.adk.sessions`` → ``adk_runtime.sessions``).

Backends with a driver (``RedisSessionService``, ``DatabaseSessionService``) are imported
on first use, and so is ``VertexAiSessionService``, google-adk's Vertex AI store: the name is
here so that code importing it loads, and building one raises ``ConfigurationError``.
"""

from typing import TYPE_CHECKING

from adk_runtime._lazy import lazy_getattr
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
from adk_runtime.sessions.retention import IdleSession, PruneResult
from adk_runtime.sessions.session import Session
from adk_runtime.sessions.state import State, StateSchemaError

if TYPE_CHECKING:
    from adk_runtime.sessions.redis import RedisSessionService
    from adk_runtime.sessions.sql import DatabaseSessionService
    from adk_runtime.sessions.vertex_ai_session_service import VertexAiSessionService

__all__ = [
    "BaseSessionService",
    "DatabaseSessionService",
    "GetSessionConfig",
    "IdleSession",
    "InMemorySessionService",
    "ListSessionsResponse",
    "PruneResult",
    "RedisSessionService",
    "Session",
    "State",
    "StateSchemaError",
    "VertexAiSessionService",
    "register_session_backend",
    "session_service_from_url",
    "supported_schemes",
]

__getattr__ = lazy_getattr(
    __name__,
    {
        "RedisSessionService": "adk_runtime.sessions.redis",
        "DatabaseSessionService": "adk_runtime.sessions.sql",
        "VertexAiSessionService": "adk_runtime.sessions.vertex_ai_session_service",
    },
)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
