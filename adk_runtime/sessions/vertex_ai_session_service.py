"""``google.adk.sessions.vertex_ai_session_service`` → here: a name that refuses to be built.

Vertex AI Agent Engine sessions are a Google Cloud service, outside adk_runtime's scope (its
session stores are SQLite, PostgreSQL, Redis and memory). The module exists so that code and
tests importing it load; building :class:`VertexAiSessionService` raises
:class:`~adk_runtime.errors.ConfigurationError` at once, before anything could be stored.
"""

from __future__ import annotations

from typing import NoReturn

from adk_runtime.errors import ConfigurationError

__all__ = ["VertexAiSessionService"]


class VertexAiSessionService:
    """google-adk's Vertex AI session store: not available in adk_runtime."""

    def __init__(
        self,
        project: str | None = None,
        location: str | None = None,
        agent_engine_id: str | None = None,
        *,
        express_mode_api_key: str | None = None,
    ) -> None:
        """Refuse: raises ConfigurationError whatever the arguments."""
        _refuse()


def _refuse() -> NoReturn:
    raise ConfigurationError(
        "VertexAiSessionService (Vertex AI Agent Engine sessions) is not part of adk_runtime. "
        "Use DatabaseSessionService (SQLite, PostgreSQL), RedisSessionService or "
        "session_service_from_url(url) instead."
    )
