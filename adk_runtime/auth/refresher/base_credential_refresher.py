"""BaseCredentialRefresher: renews a credential that has expired."""

from __future__ import annotations

import abc

from adk_runtime.auth.auth_credential import AuthCredential
from adk_runtime.auth.auth_schemes import AuthScheme
from adk_runtime.errors import AdkRuntimeError

__all__ = ["BaseCredentialRefresher", "CredentialRefresherError"]


class CredentialRefresherError(AdkRuntimeError):
    """A credential could not be refreshed (no refresh token, refused, or unreachable).

    The message names the reason and never carries a token or secret.
    """


class BaseCredentialRefresher(abc.ABC):
    """Tells whether a credential needs renewing, and renews it.

    Register one per credential type with ``CredentialManager.register_credential_refresher``.
    """

    @abc.abstractmethod
    async def is_refresh_needed(
        self, auth_credential: AuthCredential, auth_scheme: AuthScheme | None = None
    ) -> bool:
        """Whether ``auth_credential`` has expired (or is about to) and should be refreshed."""

    @abc.abstractmethod
    async def refresh(
        self, auth_credential: AuthCredential, auth_scheme: AuthScheme | None = None
    ) -> AuthCredential:
        """The renewed credential (``auth_credential`` itself is not modified).

        Raises:
            CredentialRefresherError: The refresh was attempted and failed.
        """
