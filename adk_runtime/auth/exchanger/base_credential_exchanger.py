"""BaseCredentialExchanger: turns a credential into a usable one (a code into tokens...)."""

from __future__ import annotations

import abc
from typing import NamedTuple

from adk_runtime.auth.auth_credential import AuthCredential
from adk_runtime.auth.auth_schemes import AuthScheme
from adk_runtime.errors import AdkRuntimeError

__all__ = ["BaseCredentialExchanger", "CredentialExchangeError", "ExchangeResult"]


class CredentialExchangeError(AdkRuntimeError):
    """A credential could not be exchanged (the server refused it, or could not be reached).

    The message names the reason (an OAuth2 error code such as ``invalid_grant``) and never
    carries the code, token or secret that was sent.
    """


class ExchangeResult(NamedTuple):
    """What an exchange produced."""

    credential: AuthCredential
    """The credential to use from now on (the input when nothing was exchanged)."""
    was_exchanged: bool
    """Whether a new credential was obtained (and should be saved)."""


class BaseCredentialExchanger(abc.ABC):
    """Exchanges a credential for the one a tool calls its API with.

    An OAuth2 authorization code becomes an access token; a client id and secret become a
    client-credentials token. Register one per credential type with
    ``CredentialManager.register_credential_exchanger``.
    """

    @abc.abstractmethod
    async def exchange(
        self, auth_credential: AuthCredential, auth_scheme: AuthScheme | None = None
    ) -> ExchangeResult:
        """Exchange ``auth_credential`` if it needs it.

        Args:
            auth_credential: The credential to exchange; not modified.
            auth_scheme: The scheme the API uses (some exchangers need its endpoints).

        Returns:
            The credential to use and whether it was exchanged.

        Raises:
            CredentialExchangeError: The exchange was attempted and failed.
        """
