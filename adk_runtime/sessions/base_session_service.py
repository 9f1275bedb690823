"""``google.adk.sessions.base_session_service`` → here: the session service contract."""

from adk_runtime.sessions.base import BaseSessionService, GetSessionConfig, ListSessionsResponse

__all__ = ["BaseSessionService", "GetSessionConfig", "ListSessionsResponse"]
