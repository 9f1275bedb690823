"""BaseCredentialService: the contract of a credential store."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adk_runtime.auth._credential_context import CredentialContext
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_tool import AuthConfig

__all__ = ["BaseCredentialService"]


class BaseCredentialService(ABC):
    """Loads and saves the credentials tools obtained, by ``auth_config.credential_key``.

    Credentials belong to a user of an app: an implementation scopes them by
    ``callback_context``'s app name and user id, so no user ever reads another's.
    """

    @abstractmethod
    async def load_credential(
        self, auth_config: AuthConfig, callback_context: CredentialContext
    ) -> AuthCredential | None:
        """The credential saved under ``auth_config.credential_key`` for this user, or None."""

    @abstractmethod
    async def save_credential(
        self, auth_config: AuthConfig, callback_context: CredentialContext
    ) -> None:
        """Save ``auth_config.exchanged_auth_credential`` under its key for this user."""
