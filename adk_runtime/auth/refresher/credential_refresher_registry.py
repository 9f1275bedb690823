"""CredentialRefresherRegistry: which refresher handles which credential type."""

from __future__ import annotations

from adk_runtime.auth.auth_credential import AuthCredentialTypes
from adk_runtime.auth.refresher.base_credential_refresher import BaseCredentialRefresher

__all__ = ["CredentialRefresherRegistry"]


class CredentialRefresherRegistry:
    """Refreshers by credential type (one per type; a new registration replaces the old)."""

    def __init__(self) -> None:
        """Create an empty registry."""
        self._refreshers: dict[AuthCredentialTypes, BaseCredentialRefresher] = {}

    def register(
        self, credential_type: AuthCredentialTypes, refresher_instance: BaseCredentialRefresher
    ) -> None:
        """Use ``refresher_instance`` for credentials of ``credential_type``."""
        self._refreshers[credential_type] = refresher_instance

    def get_refresher(self, credential_type: AuthCredentialTypes) -> BaseCredentialRefresher | None:
        """The refresher for ``credential_type``, or None when there is none."""
        return self._refreshers.get(credential_type)
