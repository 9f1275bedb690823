"""CredentialExchangerRegistry: which exchanger handles which credential type."""

from __future__ import annotations

from adk_runtime.auth.auth_credential import AuthCredentialTypes
from adk_runtime.auth.exchanger.base_credential_exchanger import BaseCredentialExchanger

__all__ = ["CredentialExchangerRegistry"]


class CredentialExchangerRegistry:
    """Exchangers by credential type (one per type; a new registration replaces the old)."""

    def __init__(self) -> None:
        """Create an empty registry."""
        self._exchangers: dict[AuthCredentialTypes, BaseCredentialExchanger] = {}

    def register(
        self, credential_type: AuthCredentialTypes, exchanger_instance: BaseCredentialExchanger
    ) -> None:
        """Use ``exchanger_instance`` for credentials of ``credential_type``."""
        self._exchangers[credential_type] = exchanger_instance

    def get_exchanger(self, credential_type: AuthCredentialTypes) -> BaseCredentialExchanger | None:
        """The exchanger for ``credential_type``, or None when there is none."""
        return self._exchangers.get(credential_type)
