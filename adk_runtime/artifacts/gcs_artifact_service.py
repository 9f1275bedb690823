"""``google.adk.artifacts.gcs_artifact_service`` → here: a name that refuses to be built.

Google Cloud Storage is outside adk_runtime's scope (its artifact stores are memory, files,
SQLite and PostgreSQL). The module exists so that code and tests importing it load; building
:class:`GcsArtifactService` raises :class:`~adk_runtime.errors.ConfigurationError` at once.
"""

from __future__ import annotations

from typing import Any

from adk_runtime.errors import ConfigurationError

__all__ = ["GcsArtifactService"]


class GcsArtifactService:
    """google-adk's Google Cloud Storage artifact store: not available in adk_runtime."""

    def __init__(self, bucket_name: str, **kwargs: Any) -> None:
        """Refuse: raises ConfigurationError whatever the arguments."""
        raise ConfigurationError(
            "GcsArtifactService (Google Cloud Storage) is not part of adk_runtime. Use "
            "FileArtifactService, a database artifact store or artifact_service_from_url(url) "
            "instead."
        )
