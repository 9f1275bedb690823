"""AuthHandler: the runtime's side of a credential request and of the user's answer.

The request the client receives (``generate_auth_request``) carries no secret the agent
configured: no client secret, API key, password or token. For OAuth2 and OpenID Connect it
carries an authorization URI with a fresh ``state`` (and a PKCE challenge whose verifier stays
in the stored request). The answer is stored for the rest of the invocation under
``"temp:" + credential_key`` (never committed), exchanged for a token when the client secret
is known to this process, or when the client is public (PKCE, no secret).
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import MutableMapping
from typing import Any

from fastapi.openapi.models import OAuthFlows, SecurityBase

from adk_runtime.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    HttpAuth,
    HttpCredentials,
    OAuth2Auth,
)
from adk_runtime.auth.auth_schemes import AuthSchemeType, OpenIdConnectWithConfig
from adk_runtime.auth.auth_tool import AuthConfig
from adk_runtime.auth.oauth2_credential_util import _credential_without_client_secret
from adk_runtime.errors import ConfigurationError
from adk_runtime.sessions.state import State

try:
    from authlib.common.security import generate_token
    from authlib.oauth2.client import OAuth2Client

    AUTHLIB_AVAILABLE = True
except ImportError:  # pragma: no cover - the auth extra brings authlib
    AUTHLIB_AVAILABLE = False

__all__ = ["AUTHLIB_AVAILABLE", "AuthHandler", "OAuth2Session"]

logger = logging.getLogger(__name__)

TEMP_PREFIX = "temp:"

# Client secrets of the requests this process issued, by credential key, so that the answer
# can be exchanged for a token without the secret ever leaving the process (it is in neither
# the request the client sees nor the session). Bounded; a process that never issued the
# request (a restart, another replica) leaves the exchange to the tool (CredentialManager).
_SECRETS: OrderedDict[str, str] = OrderedDict()
_SECRETS_MAX = 4096


if AUTHLIB_AVAILABLE:

    class OAuth2Session(OAuth2Client):
        """Authlib's OAuth2 client without an HTTP session: it builds sign-in URIs only.

        Named as google-adk names the client this module builds sign-in URIs with. Building
        a URI needs no transport, and creating an HTTP client would load TLS files from
        disk; token requests go through ``oauth2_credential_util.create_oauth2_session``.
        """

        def __init__(
            self, client_id: str | None, client_secret: str | None = None, **kwargs: Any
        ) -> None:
            """A client for ``client_id``; ``kwargs`` as Authlib's ``OAuth2Client`` takes."""
            super().__init__(None, client_id, client_secret, **kwargs)


def remember_client_secret(auth_config: AuthConfig) -> None:
    """Keep the configured client secret of ``auth_config`` in this process's memory."""
    raw = auth_config.raw_auth_credential
    secret = raw.oauth2.client_secret if raw is not None and raw.oauth2 is not None else None
    if not secret or not auth_config.credential_key:
        return
    _SECRETS[auth_config.credential_key] = secret
    _SECRETS.move_to_end(auth_config.credential_key)
    while len(_SECRETS) > _SECRETS_MAX:
        _SECRETS.popitem(last=False)


def _without_agent_secrets(credential: AuthCredential | None) -> AuthCredential | None:
    """A copy of ``credential`` with the agent's own secrets removed (client secret, keys)."""
    copy = _credential_without_client_secret(credential)
    if copy is None:
        return None
    copy.api_key = None
    if copy.http is not None:
        copy.http.credentials.password = None
        copy.http.credentials.token = None
        copy.http.additional_headers = None
    return copy


def _is_oauth(auth_config: AuthConfig) -> bool:
    scheme = auth_config.auth_scheme
    kind = getattr(scheme, "type_", None)
    return isinstance(scheme, SecurityBase) and kind in (
        AuthSchemeType.oauth2,
        AuthSchemeType.openIdConnect,
    )


def _scopes(value: dict[str, str] | list[str] | None) -> list[str]:
    return list(value) if value else []


def _flow_endpoint(flows: OAuthFlows) -> tuple[str | None, list[str]]:
    """The URI a flow sends the user to and its scopes, in google-adk's order of flows.

    Implicit, then authorization code (their authorization URLs), then client credentials
    and password (their token URLs, for schemes that declare only those).
    """
    if flows.implicit is not None:
        return flows.implicit.authorizationUrl, _scopes(flows.implicit.scopes)
    if flows.authorizationCode is not None:
        code = flows.authorizationCode
        return code.authorizationUrl, _scopes(code.scopes)
    if flows.clientCredentials is not None:
        return flows.clientCredentials.tokenUrl, _scopes(flows.clientCredentials.scopes)
    if flows.password is not None:
        return flows.password.tokenUrl, _scopes(flows.password.scopes)
    return None, []


def _authorization_endpoint(auth_config: AuthConfig) -> tuple[str, list[str]]:
    scheme = auth_config.auth_scheme
    if isinstance(scheme, OpenIdConnectWithConfig):
        return scheme.authorization_endpoint, _scopes(scheme.scopes)
    # A custom scheme may carry OAuth2 flows too: read them off whatever the scheme is.
    flows = getattr(scheme, "flows", None)
    endpoint, scopes = _flow_endpoint(flows) if isinstance(flows, OAuthFlows) else (None, [])
    if not endpoint:
        raise ValueError(
            f"The {type(scheme).__name__} scheme declares no authorization endpoint "
            "(an OAuth2 flow with a URL, or OpenIdConnectWithConfig): the user "
            "cannot be sent to sign in."
        )
    return endpoint, scopes


def _store(state: State | MutableMapping[str, Any], name: str, credential: AuthCredential) -> None:
    # JSON form: the session's state holds JSON values only, even under temp: keys.
    stored = _credential_without_client_secret(credential)
    assert stored is not None
    state[name] = stored.model_dump(mode="json", by_alias=True, exclude_none=True)


class AuthHandler:
    """Builds the credential request a tool asks for and stores the user's answer.

    Used by the runtime (``ToolContext.request_credential``, the resume after the answer)
    and by ``CredentialManager``; applications rarely call it directly.
    """

    def __init__(self, auth_config: AuthConfig) -> None:
        """Handle the credential ``auth_config`` describes."""
        self.auth_config = auth_config

    def generate_auth_request(self) -> AuthConfig:
        """The request the client receives: what to collect, without the agent's secrets.

        For OAuth2 / OpenID Connect, ``exchanged_auth_credential`` carries the URI to send
        the user to, with a new ``state`` (and a PKCE challenge for a public client).

        Raises:
            ValueError: An OAuth2 scheme without the client (``raw_auth_credential.oauth2``
                with a ``client_id``) or without an authorization endpoint.
            ConfigurationError: Authlib (the ``auth`` extra) is not installed.
        """
        config = self.auth_config
        request = config.model_copy(deep=True)
        if _is_oauth(config) and not (
            config.exchanged_auth_credential is not None
            and config.exchanged_auth_credential.oauth2 is not None
            and config.exchanged_auth_credential.oauth2.auth_uri
        ):
            request.exchanged_auth_credential = self._with_auth_uri()
        request.raw_auth_credential = _without_agent_secrets(request.raw_auth_credential)
        request.exchanged_auth_credential = _without_agent_secrets(
            request.exchanged_auth_credential
        )
        return request

    def _with_auth_uri(self) -> AuthCredential:
        raw = self.auth_config.raw_auth_credential
        kind = getattr(self.auth_config.auth_scheme, "type_", None)
        label = getattr(kind, "value", kind)
        if raw is None:
            raise ValueError(
                f"Auth scheme {label} requires auth_credential: set raw_auth_credential "
                "with the OAuth2 client (client_id, and client_secret unless it is public)."
            )
        if raw.oauth2 is None:
            raise ValueError(
                f"Auth scheme {label} requires oauth2 in auth_credential "
                "(client_id, and client_secret unless it is public)."
            )
        if raw.oauth2.auth_uri:
            return raw.model_copy(deep=True)
        if not raw.oauth2.client_id:
            raise ValueError(
                f"Auth scheme {label} requires client_id in auth_credential.oauth2 "
                "to build the sign-in URI."
            )
        credential = self.generate_auth_uri()
        if credential is None:  # pragma: no cover - the auth extra brings authlib
            raise ConfigurationError(
                "OAuth2 sign-in needs Authlib: pip install 'adk-runtime[auth]'."
            )
        return credential

    def generate_auth_uri(self) -> AuthCredential | None:
        """The raw credential with a sign-in URI (``auth_uri``) and a fresh ``state``.

        A public client (no client secret) and one that asks for it get a PKCE challenge;
        its ``code_verifier`` stays in the returned credential, never in the URI. No
        network call and no file is read: the URI is built in memory.

        Returns:
            The credential to send the user off with; without Authlib, a copy of the raw
            credential (or None when there is none).

        Raises:
            ValueError: No ``raw_auth_credential.oauth2``; a scheme without any URL to send
                the user to; a ``code_challenge_method`` other than ``S256``.
        """
        raw = self.auth_config.raw_auth_credential
        if not AUTHLIB_AVAILABLE:
            return raw.model_copy(deep=True) if raw is not None else None
        if raw is None or raw.oauth2 is None:
            raise ValueError("raw_auth_credential with an oauth2 section is needed to sign in.")
        endpoint, scopes = _authorization_endpoint(self.auth_config)
        oauth2 = raw.oauth2
        method = oauth2.code_challenge_method
        if method is None and not oauth2.client_secret:
            logger.warning(
                "OAuth2 client %s has no client secret: treating it as a public client (PKCE).",
                oauth2.client_id,
            )
            method = "S256"
        verifier = oauth2.code_verifier
        if method is not None:
            if method != "S256":
                raise ValueError(f"Unsupported code_challenge_method {method!r}; use 'S256'.")
            verifier = verifier or generate_token(48)
        client = OAuth2Session(
            oauth2.client_id,
            oauth2.client_secret,
            scope=" ".join(scopes),
            redirect_uri=oauth2.redirect_uri,
            code_challenge_method=method,
        )
        params: dict[str, Any] = {"access_type": "offline", "prompt": oauth2.prompt or "consent"}
        if oauth2.audience:
            params["audience"] = oauth2.audience
        if oauth2.nonce:
            params["nonce"] = oauth2.nonce
        uri, state = client.create_authorization_url(url=endpoint, code_verifier=verifier, **params)
        credential = raw.model_copy(deep=True)
        assert credential.oauth2 is not None
        credential.oauth2.auth_uri = uri
        credential.oauth2.state = state
        if verifier:
            credential.oauth2.code_verifier = verifier
            credential.oauth2.code_challenge_method = method
        return credential

    def _client_secret(self) -> str | None:
        raw = self.auth_config.raw_auth_credential
        secret = raw.oauth2.client_secret if raw is not None and raw.oauth2 is not None else None
        return secret or _SECRETS.get(self.auth_config.credential_key or "")

    def _needs_exchange(self, credential: AuthCredential | None) -> bool:
        oauth2 = credential.oauth2 if credential is not None else None
        return (
            _is_oauth(self.auth_config)
            and oauth2 is not None
            and not oauth2.access_token
            and bool(oauth2.client_id)
            and bool(oauth2.auth_response_uri or oauth2.auth_code)
        )

    async def exchange_auth_token(self) -> AuthCredential:
        """Exchange the answer in ``exchanged_auth_credential`` for a token.

        Raises:
            CredentialExchangeError: The token endpoint refused the exchange.
        """
        from adk_runtime.auth.exchanger.oauth2_credential_exchanger import (
            OAuth2CredentialExchanger,
        )

        credential = self.auth_config.exchanged_auth_credential
        if credential is None:
            raise ValueError("There is no answer (exchanged_auth_credential) to exchange.")
        result = await OAuth2CredentialExchanger().exchange(
            credential, self.auth_config.auth_scheme
        )
        return result.credential

    async def parse_and_store_auth_response(self, state: State | MutableMapping[str, Any]) -> None:
        """Store the user's answer for this invocation, exchanged for a token when possible.

        Stored under ``"temp:" + credential_key`` (never committed), without the client
        secret. The exchange happens here when the client secret is known to this process
        or the client is public (PKCE); otherwise the tool's ``CredentialManager`` does it.

        Raises:
            ValueError: The config has no credential key.
            CredentialExchangeError: The token endpoint refused the exchange.
        """
        key = self.auth_config.credential_key
        if not key:
            raise ValueError("The auth config has no credential_key.")
        credential = self.auth_config.exchanged_auth_credential
        if credential is not None:
            credential = await self._exchanged(credential)
            _store(state, TEMP_PREFIX + key, credential)

    async def _exchanged(self, credential: AuthCredential) -> AuthCredential:
        """``credential`` exchanged for a token when it needs it and this process can."""
        if not self._needs_exchange(credential):
            return credential
        assert credential.oauth2 is not None
        secret = self._client_secret()
        if not (secret or credential.oauth2.code_verifier):
            return credential  # a confidential client whose secret this process never saw
        answer = credential.model_copy(deep=True)
        assert answer.oauth2 is not None
        answer.oauth2.client_secret = secret
        handler = AuthHandler(
            self.auth_config.model_copy(update={"exchanged_auth_credential": answer})
        )
        return await handler.exchange_auth_token()

    def has_auth_response(self, state: State | MutableMapping[str, Any]) -> bool:
        """Whether the user's answer for this config is in ``state`` (nothing is exchanged)."""
        return self._stored_answer(state) is not None

    def _stored_answer(
        self, state: State | MutableMapping[str, Any]
    ) -> tuple[str, str | AuthCredential | dict[str, Any]] | None:
        """The state key holding the user's answer, and the answer as stored.

        The ``temp:`` key is read first, then the bare key; an answer is a non-empty string,
        a credential or its dict form.
        """
        key = self.auth_config.credential_key
        if not key:
            return None
        for name in (TEMP_PREFIX + key, key):
            value = state.get(name)
            if (isinstance(value, str) and value) or isinstance(value, AuthCredential | dict):
                return name, value
        return None

    def get_auth_response(self, state: State | MutableMapping[str, Any]) -> AuthCredential | None:
        """The credential the user gave for this config in this invocation, or None.

        Also reads a credential kept under the bare key (a string is taken as the key or
        token the scheme expects). An OAuth2 answer not yet exchanged for a token (the
        request was issued by another process, so the client secret was not known when the
        answer arrived) is exchanged here with this config's secret when called from a sync
        tool (which runs in a worker thread); on the event loop it is returned as it is
        (``auth_response_uri`` set, no ``access_token``): an async tool gets the token
        without blocking from ``CredentialManager`` (or ``AuthenticatedFunctionTool``).

        Raises:
            CredentialExchangeError: The token endpoint refused the exchange.
        """
        stored = self._stored_answer(state)
        if stored is None:
            return None
        name, value = stored
        if isinstance(value, str):
            return self._from_string(value)
        credential = (
            value if isinstance(value, AuthCredential) else AuthCredential.model_validate(value)
        )
        return self._exchanged_here(state, name, credential)

    def _exchanged_here(
        self, state: State | MutableMapping[str, Any], name: str, credential: AuthCredential
    ) -> AuthCredential:
        if not self._needs_exchange(credential):
            return credential
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # a worker thread (a sync tool): a loop of its own may block it
            exchanged = asyncio.run(self._exchanged(credential))
            _store(state, name, exchanged)
            return exchanged
        return credential

    def _from_string(self, value: str) -> AuthCredential:
        kind = getattr(self.auth_config.auth_scheme, "type_", None)
        if kind == AuthSchemeType.apiKey:
            return AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key=value)
        if kind == AuthSchemeType.http:
            scheme = getattr(self.auth_config.auth_scheme, "scheme", None) or "bearer"
            return AuthCredential(
                auth_type=AuthCredentialTypes.HTTP,
                http=HttpAuth(scheme=scheme, credentials=HttpCredentials(token=value)),
            )
        return AuthCredential(
            auth_type=AuthCredentialTypes.OAUTH2, oauth2=OAuth2Auth(access_token=value)
        )
