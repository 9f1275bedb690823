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

__all__ = ["AuthHandler"]

logger = logging.getLogger(__name__)

TEMP_PREFIX = "temp:"

# Client secrets of the requests this process issued, by credential key, so that the answer
# can be exchanged for a token without the secret ever leaving the process (it is in neither
# the request the client sees nor the session). Bounded; a process that never issued the
# request (a restart, another replica) leaves the exchange to the tool (CredentialManager).
_SECRETS: OrderedDict[str, str] = OrderedDict()
_SECRETS_MAX = 4096


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


def _authorization_endpoint(auth_config: AuthConfig) -> tuple[str, list[str]]:
    scheme = auth_config.auth_scheme
    if isinstance(scheme, OpenIdConnectWithConfig):
        return scheme.authorization_endpoint, _scopes(scheme.scopes)
    flows = getattr(scheme, "flows", None)
    if isinstance(flows, OAuthFlows):
        if flows.authorizationCode is not None:
            code = flows.authorizationCode
            return code.authorizationUrl, _scopes(code.scopes)
        if flows.implicit is not None:
            return flows.implicit.authorizationUrl, _scopes(flows.implicit.scopes)
    raise ValueError(
        f"The {type(scheme).__name__} scheme declares no authorization endpoint "
        "(an authorizationCode or implicit flow, or OpenIdConnectWithConfig): the user "
        "cannot be sent to sign in."
    )


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
        if raw is None or raw.oauth2 is None:
            raise ValueError(
                "An OAuth2 or OpenID Connect scheme needs raw_auth_credential with an oauth2 "
                "section (client_id, and client_secret for a confidential client)."
            )
        if raw.oauth2.auth_uri:
            return raw.model_copy(deep=True)
        client_id = raw.oauth2.client_id
        if not client_id:
            raise ValueError(
                "raw_auth_credential.oauth2 needs a client_id to build the sign-in URI."
            )
        endpoint, scopes = _authorization_endpoint(self.auth_config)
        try:
            from authlib.common.security import generate_token
            from authlib.oauth2.rfc6749.parameters import prepare_grant_uri
            from authlib.oauth2.rfc7636 import create_s256_code_challenge
        except ImportError as exc:  # pragma: no cover - the auth extra brings authlib
            raise ConfigurationError(
                "OAuth2 sign-in needs Authlib: pip install 'adk-runtime[auth]'."
            ) from exc
        oauth2 = raw.oauth2
        method = oauth2.code_challenge_method or (None if oauth2.client_secret else "S256")
        if method is not None and method != "S256":
            raise ValueError(f"code_challenge_method {method!r} is not supported; use 'S256'.")
        verifier = (oauth2.code_verifier or generate_token(48)) if method else None
        state = generate_token(30)
        params: dict[str, Any] = {"access_type": "offline", "prompt": oauth2.prompt or "consent"}
        if verifier is not None:
            challenge: str = create_s256_code_challenge(verifier)  # type: ignore[no-untyped-call]
            params["code_challenge"] = challenge
            params["code_challenge_method"] = method
        if oauth2.audience:
            params["audience"] = oauth2.audience
        if oauth2.nonce:
            params["nonce"] = oauth2.nonce
        # Building the URI needs no HTTP client (creating one loads TLS files: blocking).
        uri = prepare_grant_uri(
            endpoint,
            client_id,
            "code",
            redirect_uri=oauth2.redirect_uri,
            scope=" ".join(scopes) or None,
            state=state,
            **params,
        )
        credential = raw.model_copy(deep=True)
        assert credential.oauth2 is not None
        credential.oauth2.auth_uri = uri
        credential.oauth2.state = state
        if verifier is not None:
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
        key = self.auth_config.credential_key
        if not key:
            return None
        for name in (TEMP_PREFIX + key, key):
            value = state.get(name)
            if isinstance(value, str) and value:
                return self._from_string(value)
            if isinstance(value, AuthCredential | dict):
                credential = (
                    value
                    if isinstance(value, AuthCredential)
                    else AuthCredential.model_validate(value)
                )
                return self._exchanged_here(state, name, credential)
        return None

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
