"""BaseAuthProvider: an application's own way of obtaining credentials for its schemes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from adk_runtime.auth._credential_context import CredentialContext
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_schemes import AuthScheme
    from adk_runtime.auth.auth_tool import AuthConfig

__all__ = ["BaseAuthProvider"]


class BaseAuthProvider(ABC):
    """Provides credentials for ``CustomAuthScheme`` subclasses.

    Register an instance with ``CredentialManager.register_auth_provider``; a tool whose
    scheme is one of :attr:`supported_auth_schemes` then gets its credential from
    :meth:`get_auth_credential` (the provider loads, caches and refreshes as it sees fit).
    """

    @property
    def supported_auth_schemes(self) -> tuple[type[AuthScheme], ...]:
        """The scheme classes this provider serves (used on registration); none by default."""
        return ()

    @abstractmethod
    async def get_auth_credential(
        self, auth_config: AuthConfig, context: CredentialContext
    ) -> AuthCredential | None:
        """The credential for ``auth_config`` in ``context``, or None when there is none.

        An OAuth2 credential with an ``auth_uri`` and no access token asks for the user's
        consent: the tool then requests the credential from the client.
        """
