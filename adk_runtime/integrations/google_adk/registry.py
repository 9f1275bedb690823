"""``register()``: the ``adkrt+<scheme>`` URIs in google-adk's service registry.

After ``register()`` (e.g. in an agents directory's ``services.py``), ``adk web`` and
``adk api_server`` accept ``--session_service_uri adkrt+sqlite+aiosqlite:///app.db`` (or
``adkrt+postgresql+asyncpg://…``, ``adkrt+redis://…``,
``adkrt+spanner:///projects/P/instances/I/databases/D``), and likewise
``--artifact_service_uri`` and ``--memory_service_uri`` for the stores adk_runtime has.
"""

from __future__ import annotations

from typing import Any

from google.adk.cli.service_registry import get_service_registry

from adk_runtime.artifacts import registry as artifact_registry
from adk_runtime.integrations.google_adk._uri import SCHEME_PREFIX
from adk_runtime.integrations.google_adk.artifacts import DurableArtifactService
from adk_runtime.integrations.google_adk.memory import DurableMemoryService
from adk_runtime.integrations.google_adk.sessions import DurableSessionService
from adk_runtime.memory import registry as memory_registry
from adk_runtime.sessions import registry as session_registry

__all__ = ["SCHEME_PREFIX", "register"]


def _sessions(uri: str, **kwargs: Any) -> DurableSessionService:
    return DurableSessionService(uri, **kwargs)


def _artifacts(uri: str, **kwargs: Any) -> DurableArtifactService:
    return DurableArtifactService(uri, **kwargs)


def _memory(uri: str, **kwargs: Any) -> DurableMemoryService:
    return DurableMemoryService(uri, **kwargs)


def register() -> list[str]:
    """Add ``adkrt+<scheme>`` for every adk_runtime store to google-adk's service registry.

    Safe to call more than once.

    Returns:
        The URI schemes registered (sessions, artifacts and memory together), sorted.
    """
    services = get_service_registry()
    schemes: set[str] = set()
    for scheme in session_registry.supported_schemes():
        services.register_session_service(SCHEME_PREFIX + scheme, _sessions)
        schemes.add(SCHEME_PREFIX + scheme)
    for scheme in artifact_registry.supported_schemes():
        services.register_artifact_service(SCHEME_PREFIX + scheme, _artifacts)
        schemes.add(SCHEME_PREFIX + scheme)
    for scheme in memory_registry.supported_schemes():
        services.register_memory_service(SCHEME_PREFIX + scheme, _memory)
        schemes.add(SCHEME_PREFIX + scheme)
    return sorted(schemes)
