"""Build the artifact and memory services a command was configured with (by URL)."""

from __future__ import annotations

import importlib
from typing import Any

from adk_runtime.artifacts.base import BaseArtifactService
from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.errors import ConfigurationError, redact_url
from adk_runtime.memory.base import BaseMemoryService
from adk_runtime.memory.in_memory import InMemoryMemoryService

__all__ = ["artifact_service_for", "memory_service_for"]


def _factory(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def artifact_service_for(url: str | None) -> BaseArtifactService:
    """The artifact service ``url`` names (None or ``memory://``: in memory)."""
    if url is None or url == "memory://":
        return InMemoryArtifactService()
    factory = _factory("adk_runtime.artifacts", "artifact_service_from_url")
    if factory is None:
        raise ConfigurationError(
            f"Artifact URL {redact_url(url)!r} is not supported by this installation; "
            "use memory://."
        )
    service: BaseArtifactService = factory(url)
    return service


def memory_service_for(url: str | None) -> BaseMemoryService | None:
    """The memory service ``url`` names (None: no memory service; ``memory://``: in memory)."""
    if url is None:
        return None
    if url == "memory://":
        return InMemoryMemoryService()
    factory = _factory("adk_runtime.memory", "memory_service_from_url")
    if factory is None:
        raise ConfigurationError(
            f"Memory URL {redact_url(url)!r} is not supported by this installation; use memory://."
        )
    service: BaseMemoryService = factory(url)
    return service
