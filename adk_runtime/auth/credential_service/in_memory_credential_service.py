"""InMemoryCredentialService: credentials kept in this process (tests, prototypes)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.auth.credential_service.base_credential_service import BaseCredentialService

if TYPE_CHECKING:
    from adk_runtime.auth._credential_context import CredentialContext
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_tool import AuthConfig

__all__ = ["InMemoryCredentialService"]


class InMemoryCredentialService(BaseCredentialService):
    """Keeps credentials in a dict, per app and user; lost when the process ends.

    Every credential is copied on the way in and out, so a caller that changes the object it
    saved or loaded never changes what is stored.
    """

    def __init__(self) -> None:
        """Create an empty store."""
        self._credentials: dict[tuple[str, str], dict[str, AuthCredential | None]] = {}

    async def load_credential(
        self, auth_config: AuthConfig, callback_context: CredentialContext
    ) -> AuthCredential | None:
        """The credential this app's user saved under ``auth_config.credential_key``, or None."""
        stored = self._bucket(callback_context).get(_key(auth_config))
        return None if stored is None else stored.model_copy(deep=True)

    async def save_credential(
        self, auth_config: AuthConfig, callback_context: CredentialContext
    ) -> None:
        """Keep ``auth_config.exchanged_auth_credential`` for this app's user."""
        credential = auth_config.exchanged_auth_credential
        self._bucket(callback_context)[_key(auth_config)] = (
            None if credential is None else credential.model_copy(deep=True)
        )

    def _bucket(self, callback_context: CredentialContext) -> dict[str, AuthCredential | None]:
        scope = (callback_context.session.app_name, callback_context.user_id)
        return self._credentials.setdefault(scope, {})


def _key(auth_config: AuthConfig) -> str:
    # AuthConfig always derives a key when none is given.
    return auth_config.credential_key or ""
