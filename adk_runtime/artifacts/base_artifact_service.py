"""``google.adk.artifacts.base_artifact_service`` → here: the artifact service contract."""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_runtime.artifacts._store import _as_part
from adk_runtime.artifacts.base import ArtifactVersion, BaseArtifactService

__all__ = ["ArtifactVersion", "BaseArtifactService", "ensure_part"]


def ensure_part(artifact: types.Part | dict[str, Any]) -> types.Part:
    """Return ``artifact`` as a ``Part``; a dict (camelCase or snake_case keys) is validated.

    Raises:
        InputValidationError: ``artifact`` is neither a ``Part`` nor a dict that is one.
    """
    return _as_part(artifact)
