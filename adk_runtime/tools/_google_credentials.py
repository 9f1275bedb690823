"""Google API credentials for tools: a configured identity, a caller's token, or the user's.

``BaseGoogleCredentialsConfig`` says where a tool's Google credentials come from, and
``GoogleCredentialsManager`` turns that into a valid ``google.auth`` credential for a call:

- ``credentials``: one identity for every user (application default credentials, a service
  account). Refreshed when it is not valid.
- ``external_access_token_key``: an access token the application put in the session state.
- ``client_id`` / ``client_secret`` (and ``scopes``): each user signs in with Google (OAuth2
  authorization code). The user's credential is cached in the session state under the
  config's token cache key (without the client secret: the state is readable by the client)
  and refreshed when it expires.

google-auth's calls are blocking (``refresh`` sends an HTTP request), so they run in worker
threads, never on the event loop. No KMS encryption of the cache here (google-adk's
``kms_key_name``): the cached JSON holds no client secret.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import TYPE_CHECKING

import google.auth.credentials
import google.oauth2.credentials
from fastapi.openapi.models import OAuth2, OAuthFlowAuthorizationCode, OAuthFlows
from google.auth.exceptions import RefreshError
from google.auth.transport.requests import Request
from pydantic import BaseModel, ConfigDict, model_validator

if TYPE_CHECKING:
    from adk_runtime.auth.auth_credential import AuthCredential
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["BaseGoogleCredentialsConfig", "GoogleCredentialsManager"]

logger = logging.getLogger(__name__)

GOOGLE_AUTHORIZATION_URL = "https://accounts.google.com/o/oauth2/auth"
GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token"


class BaseGoogleCredentialsConfig(BaseModel):
    """Where a tool's Google credentials come from: exactly one of three sources.

    Attributes:
        credentials: One ``google.auth`` credential used for every user (no sign-in). Only
            for an identity allowed to reach every user's data.
        external_access_token_key: The session-state key of an access token the application
            provides.
        client_id: The OAuth2 client each user signs in with (with ``client_secret``).
        client_secret: That client's secret; never sent to the client nor cached in state.
        scopes: The scopes the user grants.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    credentials: google.auth.credentials.Credentials | None = None
    external_access_token_key: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    scopes: list[str] | None = None

    _token_cache_key: str | None = None
    """The session-state key the user's credential is cached under (set by subclasses)."""

    @model_validator(mode="after")
    def _one_source(self) -> BaseGoogleCredentialsConfig:
        if self.credentials is not None:
            if (
                self.external_access_token_key
                or self.client_id
                or self.client_secret
                or (self.scopes)
            ):
                raise ValueError(
                    "credentials is set: leave external_access_token_key, client_id, "
                    "client_secret and scopes unset (the credential carries its own)."
                )
            if isinstance(self.credentials, google.oauth2.credentials.Credentials):
                # A user credential: its client and scopes are the ones a refresh uses.
                self.client_id = self.credentials.client_id
                self.client_secret = self.credentials.client_secret
                scopes = self.credentials.scopes
                self.scopes = list(scopes) if scopes else None
        elif self.external_access_token_key:
            if self.client_id or self.client_secret or self.scopes:
                raise ValueError(
                    "external_access_token_key is set: leave client_id, client_secret and "
                    "scopes unset (the application provides the token)."
                )
        elif not (self.client_id and self.client_secret):
            raise ValueError(
                "Set one source of Google credentials: credentials, "
                "external_access_token_key, or client_id with client_secret."
            )
        return self


def _refresh(credentials: google.auth.credentials.Credentials) -> None:
    """Refresh ``credentials`` (blocking: an HTTP request; call it in a worker thread)."""
    credentials.refresh(Request())  # type: ignore[no-untyped-call]


class GoogleCredentialsManager:
    """Gets a tool a valid Google credential, asking the user to sign in when needed.

    Several tools may share one manager (and one config): what is per user lives in the
    session state, never on the manager.
    """

    def __init__(self, credentials_config: BaseGoogleCredentialsConfig) -> None:
        """Manage the credentials ``credentials_config`` describes."""
        self.credentials_config = credentials_config

    async def get_valid_credentials(
        self, tool_context: ToolContext
    ) -> google.auth.credentials.Credentials | None:
        """A valid credential for this call, or None when the user has been asked to sign in.

        Raises:
            ValueError: ``external_access_token_key`` names no token in the session state.
        """
        config = self.credentials_config
        if config.external_access_token_key:
            token = tool_context.state.get(config.external_access_token_key)
            if not token:
                raise ValueError(
                    f"No access token in the session state under "
                    f"{config.external_access_token_key!r} (the config's "
                    "external_access_token_key): the application puts it there before the "
                    "tool runs."
                )
            return google.oauth2.credentials.Credentials(token=token)  # type: ignore[no-untyped-call]

        cached = self._from_cache(tool_context)
        credentials = cached if cached is not None else config.credentials
        if credentials is not None and not isinstance(
            credentials, google.oauth2.credentials.Credentials
        ):
            return await self._service_credentials(credentials)
        if credentials is not None and credentials.valid:
            return credentials
        if credentials is not None and credentials.expired and credentials.refresh_token:
            try:
                await asyncio.to_thread(_refresh, credentials)
            except RefreshError as exc:
                logger.info("Refreshing the Google credential failed (%s): signing in again.", exc)
            else:
                if credentials.valid:
                    if cached is not None:
                        self._cache(tool_context, credentials)
                    return credentials
        return await self._sign_in(tool_context)

    async def _service_credentials(
        self, credentials: google.auth.credentials.Credentials
    ) -> google.auth.credentials.Credentials:
        """A non-user credential (service account, ADC), refreshed if it is not valid.

        A failed refresh is logged and the credential returned anyway: the client library
        that uses it may refresh it itself.
        """
        if not credentials.valid:
            try:
                await asyncio.to_thread(_refresh, credentials)
            except Exception as exc:  # any failure: the library may refresh it itself
                logger.warning(
                    "Refreshing the configured Google credential failed (%s); using it as it is.",
                    type(exc).__name__,
                )
        return credentials

    def _from_cache(
        self, tool_context: ToolContext
    ) -> google.oauth2.credentials.Credentials | None:
        """The user's credential cached in the session state, or None (absent or unreadable)."""
        config = self.credentials_config
        key = config._token_cache_key
        text = tool_context.state.get(key) if key else None
        if not text:
            return None
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            # The cache holds no client secret: the configured client refreshes the token.
            if config.client_id:
                data["client_id"] = config.client_id
            if config.client_secret:
                data["client_secret"] = config.client_secret
            return google.oauth2.credentials.Credentials.from_authorized_user_info(  # type: ignore[no-untyped-call,no-any-return]
                data, config.scopes
            )
        except (TypeError, ValueError) as exc:
            logger.warning(
                "Ignoring the cached Google credential under %r (%s); the user signs in again.",
                key,
                type(exc).__name__,
            )
            return None

    def _cache(
        self, tool_context: ToolContext, credentials: google.oauth2.credentials.Credentials
    ) -> None:
        """Cache the user's credential in the session state, without the client secret."""
        key = self.credentials_config._token_cache_key
        if not key:
            return
        text: str = credentials.to_json()  # type: ignore[no-untyped-call]
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        if isinstance(data, dict):
            data.pop("client_secret", None)
            text = json.dumps(data)
        tool_context.state[key] = text

    def _auth_config(self) -> AuthConfig:
        from adk_runtime.auth.auth_credential import (
            AuthCredential,
            AuthCredentialTypes,
            OAuth2Auth,
        )
        from adk_runtime.auth.auth_tool import AuthConfig

        config = self.credentials_config
        scheme = OAuth2(
            flows=OAuthFlows(
                authorizationCode=OAuthFlowAuthorizationCode(
                    authorizationUrl=GOOGLE_AUTHORIZATION_URL,
                    tokenUrl=GOOGLE_TOKEN_URL,
                    scopes={scope: f"Access to {scope}" for scope in config.scopes or []},
                )
            )
        )
        credential = AuthCredential(
            auth_type=AuthCredentialTypes.OAUTH2,
            oauth2=OAuth2Auth(client_id=config.client_id, client_secret=config.client_secret),
        )
        return AuthConfig(auth_scheme=scheme, raw_auth_credential=credential)

    async def _sign_in(
        self, tool_context: ToolContext
    ) -> google.oauth2.credentials.Credentials | None:
        """The credential from the user's sign-in, or None after asking the user for it."""
        auth_config = self._auth_config()
        answer = tool_context.get_auth_response(auth_config)
        if answer is not None:
            answer = await _with_tokens(auth_config, answer)
        oauth2 = answer.oauth2 if answer is not None else None
        if oauth2 is None or not oauth2.access_token:
            tool_context.request_credential(auth_config)
            return None
        config = self.credentials_config
        rapt_token = getattr(oauth2, "rapt_token", None)
        credentials = google.oauth2.credentials.Credentials(  # type: ignore[no-untyped-call]
            token=oauth2.access_token,
            refresh_token=oauth2.refresh_token,
            token_uri=GOOGLE_TOKEN_URL,
            client_id=config.client_id,
            client_secret=config.client_secret,
            scopes=list(config.scopes) if config.scopes else None,
            rapt_token=rapt_token if isinstance(rapt_token, str) else None,
        )
        self._cache(tool_context, credentials)
        return credentials


async def _with_tokens(auth_config: AuthConfig, answer: AuthCredential) -> AuthCredential:
    """The user's answer exchanged for tokens when it still carries only the code.

    An answer that reached another process than the one that asked is stored unexchanged
    (that process did not know the client secret); it is exchanged here without blocking.
    """
    oauth2 = answer.oauth2
    if oauth2 is None or oauth2.access_token or not (oauth2.auth_code or oauth2.auth_response_uri):
        return answer
    from adk_runtime.auth.auth_handler import AuthHandler
    from adk_runtime.auth.oauth2_credential_util import _with_configured_client

    pinned = _with_configured_client(
        credential=answer, raw_credential=auth_config.raw_auth_credential
    )
    handler = AuthHandler(auth_config.model_copy(update={"exchanged_auth_credential": pinned}))
    return await handler.exchange_auth_token()
