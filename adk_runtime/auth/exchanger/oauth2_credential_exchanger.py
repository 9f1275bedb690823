"""OAuth2CredentialExchanger: an authorization code or a client's credentials become tokens."""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import parse_qs, urlsplit

from fastapi.openapi.models import OAuth2

from adk_runtime.auth.auth_credential import AuthCredential, OAuth2Auth
from adk_runtime.auth.auth_schemes import AuthScheme, OAuthGrantType, OpenIdConnectWithConfig
from adk_runtime.auth.exchanger.base_credential_exchanger import (
    BaseCredentialExchanger,
    CredentialExchangeError,
    ExchangeResult,
)
from adk_runtime.auth.oauth2_credential_util import (
    TOKEN_REQUEST_ERRORS,
    create_oauth2_session,
    describe_token_error,
    scopes_of,
    update_credential_with_tokens,
)

try:
    import authlib  # noqa: F401  # the token client's library (the auth extra)

    AUTHLIB_AVAILABLE = True
except ImportError:  # pragma: no cover - the auth extra brings authlib
    AUTHLIB_AVAILABLE = False

__all__ = ["AUTHLIB_AVAILABLE", "OAuth2CredentialExchanger", "grant_type_of"]

logger = logging.getLogger(__name__)


def grant_type_of(auth_scheme: AuthScheme) -> OAuthGrantType | None:
    """The grant a scheme uses.

    An OAuth2 scheme's is its flows' (client credentials first); an OpenID Connect scheme's
    is client credentials when the provider lists them, else the authorization code.
    """
    if isinstance(auth_scheme, OAuth2):
        return OAuthGrantType.from_flow(auth_scheme.flows)
    if isinstance(auth_scheme, OpenIdConnectWithConfig):
        if "client_credentials" in (auth_scheme.grant_types_supported or []):
            return OAuthGrantType.CLIENT_CREDENTIALS
        return OAuthGrantType.AUTHORIZATION_CODE
    return None


class OAuth2CredentialExchanger(BaseCredentialExchanger):
    """Obtains OAuth2 / OpenID Connect tokens at the scheme's token endpoint.

    - Authorization code: the code is read from ``auth_response_uri`` (the redirect the user
      came back with; its ``state`` must be the one the flow started with) or from
      ``auth_code``, and sent with the PKCE ``code_verifier`` when there is one.
    - Client credentials: the client's id and secret, with the scheme's scopes.

    The result carries ``access_token``, ``refresh_token`` and ``expires_at``; the spent code,
    response URI and verifier are cleared from it. A credential that already has an access
    token is returned as it is.
    """

    async def exchange(
        self, auth_credential: AuthCredential, auth_scheme: AuthScheme | None = None
    ) -> ExchangeResult:
        """Exchange ``auth_credential`` for tokens (see the class docstring).

        Returns:
            The credential with tokens and ``was_exchanged=True``; or the input with
            ``was_exchanged=False`` when there is nothing to exchange (already a token, no
            code, a grant this exchanger does not perform, no usable client) or Authlib
            is not installed.

        Raises:
            CredentialExchangeError: No scheme was given; the authorization response is a
                refusal or its state does not match; the token endpoint refused the request
                or could not be reached.
        """
        if auth_scheme is None:
            raise CredentialExchangeError(
                "An OAuth2 exchange needs the auth scheme (it names the token endpoint)."
            )
        if not AUTHLIB_AVAILABLE:
            logger.warning("Authlib is not installed: the OAuth2 credential is not exchanged.")
            return ExchangeResult(auth_credential, False)
        oauth2 = auth_credential.oauth2
        if oauth2 is None or oauth2.access_token:
            return ExchangeResult(auth_credential, False)
        grant = grant_type_of(auth_scheme)
        if grant is OAuthGrantType.CLIENT_CREDENTIALS:
            return await self._exchange_client_credentials(auth_credential, auth_scheme)
        if grant is OAuthGrantType.AUTHORIZATION_CODE:
            return await self._exchange_authorization_code(auth_credential, auth_scheme)
        logger.warning("OAuth2 grant %s is not exchanged by this exchanger.", grant)
        return ExchangeResult(auth_credential, False)

    async def _exchange_client_credentials(
        self, auth_credential: AuthCredential, auth_scheme: AuthScheme
    ) -> ExchangeResult:
        params: dict[str, Any] = {"grant_type": OAuthGrantType.CLIENT_CREDENTIALS.value}
        scopes = scopes_of(auth_scheme)
        if scopes:
            params["scope"] = " ".join(scopes)
        return await self._fetch(auth_credential, auth_scheme, params, "client credentials")

    async def _exchange_authorization_code(
        self, auth_credential: AuthCredential, auth_scheme: AuthScheme
    ) -> ExchangeResult:
        oauth2 = auth_credential.oauth2
        assert oauth2 is not None
        code = _authorization_code(oauth2)
        if code is None:
            logger.warning(
                "The OAuth2 credential has no authorization code to exchange; "
                "the user has not signed in yet."
            )
            return ExchangeResult(auth_credential, False)
        params: dict[str, Any] = {
            "grant_type": OAuthGrantType.AUTHORIZATION_CODE.value,
            "code": code,
        }
        if oauth2.code_verifier:
            params["code_verifier"] = oauth2.code_verifier
        return await self._fetch(auth_credential, auth_scheme, params, "an authorization code")

    async def _fetch(
        self,
        auth_credential: AuthCredential,
        auth_scheme: AuthScheme,
        params: dict[str, Any],
        what: str,
    ) -> ExchangeResult:
        # Building the client reads TLS settings from disk: not on the event loop.
        client, token_endpoint = await asyncio.to_thread(
            create_oauth2_session, auth_scheme, auth_credential
        )
        oauth2 = auth_credential.oauth2
        if client is None or oauth2 is None:
            logger.warning(
                "Cannot exchange %s: the credential has no usable OAuth2 client "
                "(client_id, and a client secret unless it is a public client).",
                what,
            )
            return ExchangeResult(auth_credential, False)
        async with client:
            try:
                tokens = await client.fetch_token(token_endpoint, **params)
            except TOKEN_REQUEST_ERRORS as exc:
                reason = describe_token_error(
                    exc, params.get("code"), oauth2.client_secret, oauth2.code_verifier
                )
                raise CredentialExchangeError(
                    f"Exchanging {what} at {token_endpoint} failed ({reason}). "
                    "Check the client's configuration, or have the user sign in again."
                ) from None
        credential = auth_credential.model_copy(deep=True)
        assert credential.oauth2 is not None
        update_credential_with_tokens(credential, tokens)
        credential.oauth2.auth_code = None
        credential.oauth2.auth_response_uri = None
        credential.oauth2.code_verifier = None
        logger.debug("Exchanged %s for tokens at %s.", what, token_endpoint)
        return ExchangeResult(credential, True)


def _authorization_code(oauth2: OAuth2Auth) -> str | None:
    """The code the user came back with, after checking the response is not a refusal.

    Raises:
        CredentialExchangeError: The response carries an ``error``, or a ``state`` other
            than the one the flow started with.
    """
    if not oauth2.auth_response_uri:
        return oauth2.auth_code or None
    query = parse_qs(urlsplit(oauth2.auth_response_uri).query)
    error = query.get("error", [None])[0]
    if error:
        raise CredentialExchangeError(
            f"The authorization server refused the sign-in ({error}); ask the user again."
        )
    if oauth2.state and query.get("state", [None])[0] != oauth2.state:
        raise CredentialExchangeError(
            "The authorization response's state does not match the one this sign-in "
            "started with; it was not exchanged. Ask the user to sign in again."
        )
    return query.get("code", [None])[0] or oauth2.auth_code or None
