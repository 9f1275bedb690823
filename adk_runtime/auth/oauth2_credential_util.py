"""Building an OAuth2 token client for a scheme and a credential, and reading its answers.

The client is Authlib's async httpx client (``AsyncOAuth2Client``): token requests never
block the event loop. Building one loads TLS settings from disk, so async callers build it in
a worker thread (``await asyncio.to_thread(create_oauth2_session, ...)``) and close it after
use (``async with client:``).

The OAuth2 client secret belongs to the agent (the tool's configuration), never to the end
user: ``_credential_without_client_secret`` drops it from anything that goes to the client
or into a user-readable store, and ``_with_configured_client_secret`` /
``_with_configured_client`` put the configured one back before a token request.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

import httpx
from authlib.common.errors import AuthlibBaseError
from authlib.integrations.httpx_client import AsyncOAuth2Client
from fastapi.openapi.models import OAuth2

from adk_runtime.auth.auth_credential import AuthCredential
from adk_runtime.auth.auth_schemes import AuthScheme, OpenIdConnectWithConfig

__all__ = ["create_oauth2_session", "update_credential_with_tokens"]

logger = logging.getLogger(__name__)

TOKEN_REQUEST_TIMEOUT_SECONDS = 10.0
"""How long a token request may take before it fails (a hung endpoint never hangs a turn)."""

_SECRET_AUTH_METHODS = ("client_secret_basic", "client_secret_post", "client_secret_jwt")


def _transport_errors() -> tuple[type[Exception], ...]:
    # Authlib's httpx integration runs on httpx2 when it is installed, else on httpx.
    errors: list[type[Exception]] = [httpx.HTTPError]
    try:
        import httpx2
    except ImportError:  # pragma: no cover - depends on what is installed
        pass
    else:
        errors.append(httpx2.HTTPError)
    return tuple(errors)


TOKEN_REQUEST_ERRORS: tuple[type[Exception], ...] = (
    AuthlibBaseError,
    ValueError,
    *_transport_errors(),
)
"""What a token request through ``AsyncOAuth2Client`` raises when it fails: an OAuth2 error
answer, a response that is not a token, or a network / HTTP error."""


def describe_token_error(exc: Exception, *secrets: str | None) -> str:
    """A one-line account of a failed token request that carries none of ``secrets``.

    An OAuth2 error answer is named by its RFC 6749 code and description; anything else by
    its type and message. Any of ``secrets`` that the server echoed back is hidden.
    """
    if isinstance(exc, AuthlibBaseError):
        error = getattr(exc, "error", None) or "error"
        description = getattr(exc, "description", None)
        text = f"{error}: {description}" if description else str(error)
    else:
        text = f"{type(exc).__name__}: {exc}"
    for secret in secrets:
        if secret:
            text = text.replace(secret, "<hidden>")
    return text


def token_endpoint_of(auth_scheme: AuthScheme) -> str | None:
    """The token endpoint an OAuth2 or OpenID Connect scheme declares, or None."""
    if isinstance(auth_scheme, OpenIdConnectWithConfig):
        # getattr: a scheme built without the field (or with it deleted) names none.
        endpoint: str | None = getattr(auth_scheme, "token_endpoint", None)
        return endpoint or None
    if isinstance(auth_scheme, OAuth2):
        flows = auth_scheme.flows
        for flow in (flows.authorizationCode, flows.clientCredentials):
            if flow is not None and flow.tokenUrl:
                return flow.tokenUrl
    return None


def scopes_of(auth_scheme: AuthScheme) -> list[str]:
    """The scopes a scheme asks for (OAuth2 flows' scope names, or OpenID's ``scopes``)."""
    if isinstance(auth_scheme, OpenIdConnectWithConfig):
        return list(auth_scheme.scopes or [])
    if isinstance(auth_scheme, OAuth2):
        flows = auth_scheme.flows
        for flow in (
            flows.authorizationCode,
            flows.clientCredentials,
            flows.implicit,
            flows.password,
        ):
            if flow is not None and flow.scopes:
                return list(flow.scopes)
    return []


def _token_endpoint_auth_method(oauth2: Any) -> str | None:
    """How the client authenticates at the token endpoint; None when it cannot."""
    method: str | None = oauth2.token_endpoint_auth_method
    if oauth2.client_secret:
        return method
    # No secret: a public client (RFC 6749 section 2.1), which authenticates with its id only.
    if method == "private_key_jwt":
        return None  # needs a key this credential does not carry
    if method is None or method in _SECRET_AUTH_METHODS:
        if not oauth2.code_challenge_method:
            logger.warning(
                "OAuth2 client %s has no client secret: treating it as a public client.",
                oauth2.client_id,
            )
        return "none"
    return method


def create_oauth2_session(
    auth_scheme: AuthScheme, auth_credential: AuthCredential
) -> tuple[AsyncOAuth2Client | None, str | None]:
    """An async token client for ``auth_credential``'s OAuth2 client, and the token endpoint.

    The client authenticates as the credential's ``token_endpoint_auth_method`` says
    (``client_secret_basic`` by default; a credential without a secret is a public client).
    No scope is set on the client: exchanging a code or refreshing a token needs none (RFC
    6749), and some providers refuse one there; the client-credentials grant passes the
    scheme's scopes itself.

    Args:
        auth_scheme: An ``OAuth2`` scheme with an authorization-code or client-credentials
            token URL, or an ``OpenIdConnectWithConfig``.
        auth_credential: The credential with the client id (and secret).

    Returns:
        ``(client, token_endpoint)``, or ``(None, None)`` when the scheme has no token
        endpoint or the credential no usable client. The caller closes the client.
    """
    token_endpoint = token_endpoint_of(auth_scheme)
    if token_endpoint is None:
        logger.warning(
            "Cannot request OAuth2 tokens: the %s scheme declares no token endpoint.",
            type(auth_scheme).__name__,
        )
        return None, None
    oauth2 = auth_credential.oauth2
    if oauth2 is None or not oauth2.client_id:
        return None, None
    method = _token_endpoint_auth_method(oauth2)
    if method is None:
        return None, None
    client = AsyncOAuth2Client(
        client_id=oauth2.client_id,
        client_secret=oauth2.client_secret,
        token_endpoint_auth_method=method,
        redirect_uri=oauth2.redirect_uri,
        state=oauth2.state,
        code_challenge_method=oauth2.code_challenge_method,
        timeout=TOKEN_REQUEST_TIMEOUT_SECONDS,
    )
    return client, token_endpoint


def update_credential_with_tokens(
    auth_credential: AuthCredential, tokens: Mapping[str, Any]
) -> None:
    """Store a token response's tokens and expiry in ``auth_credential.oauth2`` (in place).

    A response without a refresh token (a refresh that does not rotate it) keeps the one
    the credential has. ``expires_at`` is computed from ``expires_in`` when the response
    does not give it.
    """
    oauth2 = auth_credential.oauth2
    if oauth2 is None or not tokens:
        return
    oauth2.access_token = tokens.get("access_token")
    oauth2.refresh_token = tokens.get("refresh_token") or oauth2.refresh_token
    oauth2.id_token = tokens.get("id_token") or oauth2.id_token
    expires_in = _as_int(tokens.get("expires_in"))
    expires_at = _as_int(tokens.get("expires_at"))
    if expires_at is None and expires_in is not None:
        expires_at = int(time.time()) + expires_in
    oauth2.expires_in = expires_in
    oauth2.expires_at = expires_at


def _as_int(value: Any) -> int | None:
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _credential_without_client_secret(
    credential: AuthCredential | None,
) -> AuthCredential | None:
    """A copy of ``credential`` without its OAuth2 client secret (None stays None)."""
    if credential is None:
        return None
    copy = credential.model_copy(deep=True)
    if copy.oauth2 is not None:
        copy.oauth2.client_secret = None
    return copy


def _with_configured_client_secret(
    *, credential: AuthCredential | None, raw_credential: AuthCredential | None
) -> AuthCredential | None:
    """A copy of ``credential`` with the OAuth2 client secret of ``raw_credential``.

    The inverse of ``_credential_without_client_secret``, for a credential read back from a
    store that keeps no secret; everything else is left as stored.
    """
    if credential is None or credential.oauth2 is None:
        return credential
    if raw_credential is None or raw_credential.oauth2 is None:
        return credential
    copy = credential.model_copy(deep=True)
    assert copy.oauth2 is not None
    copy.oauth2.client_secret = raw_credential.oauth2.client_secret
    return copy


def _with_configured_client(
    *, credential: AuthCredential | None, raw_credential: AuthCredential | None
) -> AuthCredential | None:
    """A copy of ``credential`` with the client id and secret of ``raw_credential``.

    For a credential that came back through the client: the client must not choose which
    OAuth2 client a code is exchanged for, so the id is pinned to the tool's as well.
    """
    restored = _with_configured_client_secret(credential=credential, raw_credential=raw_credential)
    if restored is None or restored.oauth2 is None:
        return restored
    if raw_credential is None or raw_credential.oauth2 is None:
        return restored
    restored.oauth2.client_id = raw_credential.oauth2.client_id
    return restored
