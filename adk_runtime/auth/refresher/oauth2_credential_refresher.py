"""OAuth2CredentialRefresher: an expired access token is renewed with the refresh token."""

from __future__ import annotations

import asyncio
import logging
import time

from adk_runtime.auth.auth_credential import AuthCredential
from adk_runtime.auth.auth_schemes import AuthScheme
from adk_runtime.auth.oauth2_credential_util import (
    TOKEN_REQUEST_ERRORS,
    create_oauth2_session,
    describe_token_error,
    update_credential_with_tokens,
)
from adk_runtime.auth.refresher.base_credential_refresher import (
    BaseCredentialRefresher,
    CredentialRefresherError,
)

__all__ = ["REFRESH_MARGIN_SECONDS", "OAuth2CredentialRefresher"]

logger = logging.getLogger(__name__)

REFRESH_MARGIN_SECONDS = 30
"""A token that expires within this many seconds counts as expired: it could lapse while the
tool's request is on its way."""


class OAuth2CredentialRefresher(BaseCredentialRefresher):
    """Refreshes OAuth2 / OpenID Connect credentials (RFC 6749 section 6).

    A credential needs refreshing when its ``expires_at`` (seconds since the epoch) is at
    most ``REFRESH_MARGIN_SECONDS`` away; one without ``expires_at`` is taken as valid.
    """

    async def is_refresh_needed(
        self, auth_credential: AuthCredential, auth_scheme: AuthScheme | None = None
    ) -> bool:
        """Whether the access token has expired or expires within the margin."""
        oauth2 = auth_credential.oauth2
        if oauth2 is None or oauth2.expires_at is None:
            return False
        return oauth2.expires_at <= time.time() + REFRESH_MARGIN_SECONDS

    async def refresh(
        self, auth_credential: AuthCredential, auth_scheme: AuthScheme | None = None
    ) -> AuthCredential:
        """Renew the access token with the ``refresh_token`` grant at the scheme's endpoint.

        A credential that has not expired is returned as it is.

        Returns:
            A new credential with the new tokens and expiry (the refresh token is replaced
            when the server rotates it).

        Raises:
            CredentialRefresherError: No scheme; no refresh token; no usable client; or the
                token endpoint refused (e.g. ``invalid_grant``: the user must sign in again)
                or could not be reached.
        """
        oauth2 = auth_credential.oauth2
        if oauth2 is None or not await self.is_refresh_needed(auth_credential, auth_scheme):
            return auth_credential
        if auth_scheme is None:
            raise CredentialRefresherError(
                "An OAuth2 refresh needs the auth scheme (it names the token endpoint)."
            )
        if not oauth2.refresh_token:
            raise CredentialRefresherError(
                "The OAuth2 access token has expired and there is no refresh token: "
                "the user must sign in again."
            )
        client, token_endpoint = await asyncio.to_thread(
            create_oauth2_session, auth_scheme, auth_credential
        )
        if client is None:
            raise CredentialRefresherError(
                "Cannot refresh the OAuth2 token: the credential has no usable OAuth2 client "
                "(client_id, and a client secret unless it is a public client)."
            )
        async with client:
            try:
                tokens = await client.refresh_token(
                    token_endpoint, refresh_token=oauth2.refresh_token
                )
            except TOKEN_REQUEST_ERRORS as exc:
                reason = describe_token_error(exc, oauth2.refresh_token, oauth2.client_secret)
                raise CredentialRefresherError(
                    f"Refreshing the OAuth2 token at {token_endpoint} failed ({reason})."
                ) from None
        credential = auth_credential.model_copy(deep=True)
        update_credential_with_tokens(credential, tokens)
        logger.debug("Refreshed an OAuth2 access token at %s.", token_endpoint)
        return credential
