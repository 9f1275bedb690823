"""CredentialManager: from a tool's AuthConfig to a credential it can call its API with."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar
from weakref import WeakKeyDictionary, WeakValueDictionary

from fastapi.openapi.models import OAuth2

from adk_runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes
from adk_runtime.auth.auth_provider_registry import AuthProviderRegistry
from adk_runtime.auth.auth_schemes import (
    AuthSchemeType,
    CustomAuthScheme,
    ExtendedOAuth2,
    OAuthGrantType,
)
from adk_runtime.auth.exchanger.base_credential_exchanger import (
    BaseCredentialExchanger,
    CredentialExchangeError,
)
from adk_runtime.auth.exchanger.credential_exchanger_registry import CredentialExchangerRegistry
from adk_runtime.auth.exchanger.oauth2_credential_exchanger import (
    OAuth2CredentialExchanger,
    grant_type_of,
)
from adk_runtime.auth.exchanger.service_account_credential_exchanger import (
    ServiceAccountCredentialExchanger,
)
from adk_runtime.auth.oauth2_credential_util import (
    _with_configured_client,
    _with_configured_client_secret,
)
from adk_runtime.auth.oauth2_discovery import OAuth2DiscoveryManager
from adk_runtime.auth.refresher.base_credential_refresher import (
    BaseCredentialRefresher,
    CredentialRefresherError,
)
from adk_runtime.auth.refresher.credential_refresher_registry import CredentialRefresherRegistry
from adk_runtime.auth.refresher.oauth2_credential_refresher import OAuth2CredentialRefresher
from adk_runtime.errors import ConfigurationError

if TYPE_CHECKING:
    from adk_runtime.auth._credential_context import CredentialContext
    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.auth.base_auth_provider import BaseAuthProvider

__all__ = ["AuthConfigurationError", "CredentialManager"]

logger = logging.getLogger(__name__)

_OAUTH2_TYPES = (AuthCredentialTypes.OAUTH2, AuthCredentialTypes.OPEN_ID_CONNECT)
_READY_TYPES = (AuthCredentialTypes.API_KEY, AuthCredentialTypes.HTTP)


class AuthConfigurationError(ConfigurationError, ValueError):
    """A tool's AuthConfig cannot work (no client for an OAuth2 scheme, no endpoints...).

    A ``ValueError`` too, as google-adk raises for the same problems.
    """


def _has_unredeemed_auth_code(credential: AuthCredential) -> bool:
    """An OAuth2 credential with a code (or response URI) but no token: useless as it is."""
    oauth2 = credential.oauth2
    if credential.auth_type not in _OAUTH2_TYPES or oauth2 is None or oauth2.access_token:
        return False
    return bool(oauth2.auth_code or oauth2.auth_response_uri)


def _carries_secret(credential: AuthCredential) -> bool:
    """Whether an API key / HTTP credential holds its secret (else the user must give it)."""
    if credential.api_key:
        return True
    http = credential.http
    return http is not None and bool(http.credentials.token or http.credentials.password)


def _rehydrate_custom_scheme(
    scheme: CustomAuthScheme, supported_schemes: Sequence[type[CustomAuthScheme]]
) -> CustomAuthScheme:
    """Turn a generic ``CustomAuthScheme`` (read back from JSON) into its registered class.

    The class is the one whose ``type_`` field defaults to the scheme's ``type_``.

    Raises:
        AuthConfigurationError: No class matches.
    """
    for scheme_class in supported_schemes:
        field = scheme_class.model_fields.get("type_")
        if field is not None and field.default == scheme.type_:
            data = scheme.model_dump(by_alias=True)
            data.update(scheme.model_extra or {})
            return scheme_class.model_validate(data)
    raise AuthConfigurationError(
        f"Cannot rehydrate: no registered scheme matches type {scheme.type_!r}. Import the "
        "module that defines its CustomAuthScheme subclass (with a default for type_) "
        "before the tool runs."
    )


class _CredentialLocks:
    """One asyncio lock per (event loop, app, user, credential key), dropped when unused."""

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._locks: WeakKeyDictionary[
            asyncio.AbstractEventLoop, WeakValueDictionary[tuple[str, str, str], asyncio.Lock]
        ] = WeakKeyDictionary()

    def get(self, key: tuple[str, str, str]) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        with self._guard:
            per_loop = self._locks.get(loop)
            if per_loop is None:
                per_loop = self._locks[loop] = WeakValueDictionary()
            lock = per_loop.get(key)
            if lock is None:
                lock = per_loop[key] = asyncio.Lock()
            return lock


class CredentialManager:
    """Gets a tool the credential its ``AuthConfig`` describes, or tells it to ask the user.

    ``get_auth_credential`` goes, as google-adk does:

    1. A ``CustomAuthScheme`` is served by its registered ``BaseAuthProvider``.
    2. Otherwise the config is checked; an ``ExtendedOAuth2`` scheme without endpoints has
       them discovered from its ``issuer_url`` (RFC 8414).
    3. A ready-to-use credential (API key, HTTP) is returned as configured (a copy); a
       service account is exchanged for a bearer token (``ServiceAccountCredentialExchanger``,
       which caches it), with no user and no credential service involved; a failed exchange
       raises ``CredentialExchangeError``.
    4. Else the credential saved in the Runner's credential service, else the user's answer
       to the credential request (``tool_context.get_auth_response``), else, for the
       client-credentials flow, the configured client. None of these: None (the tool asks
       with ``request_credential``).
    5. It is exchanged if needed (a code for tokens, with the configured client secret
       re-attached; the client never chooses the OAuth2 client), or refreshed if expired.
       A refused code or refresh gives None (the user signs in again); a refused
       client-credentials exchange raises ``CredentialExchangeError``.
    6. A new or changed credential is saved to the credential service, when there is one.

    Concurrent calls for the same user and credential (parallel tool calls) run one at a
    time, so a code is exchanged and a token refreshed once.

    Args:
        auth_config: The tool's configuration (scheme and configured credential).
    """

    _auth_provider_registry: ClassVar[AuthProviderRegistry] = AuthProviderRegistry()
    _registry_lock: ClassVar[threading.Lock] = threading.Lock()
    _credential_locks: ClassVar[_CredentialLocks] = _CredentialLocks()

    def __init__(self, auth_config: AuthConfig) -> None:
        """Manage the credential of ``auth_config`` (OAuth2 / OpenID exchange and refresh)."""
        self._auth_config = auth_config
        self._exchanger_registry = CredentialExchangerRegistry()
        self._refresher_registry = CredentialRefresherRegistry()
        self._discovery_manager = OAuth2DiscoveryManager()
        exchanger = OAuth2CredentialExchanger()
        refresher = OAuth2CredentialRefresher()
        for credential_type in _OAUTH2_TYPES:
            self._exchanger_registry.register(credential_type, exchanger)
            self._refresher_registry.register(credential_type, refresher)
        self._exchanger_registry.register(
            AuthCredentialTypes.SERVICE_ACCOUNT, ServiceAccountCredentialExchanger()
        )

    @classmethod
    def register_auth_provider(cls, provider: BaseAuthProvider) -> None:
        """Serve ``provider.supported_auth_schemes`` with ``provider`` (first one wins)."""
        with cls._registry_lock:
            for scheme_type in provider.supported_auth_schemes:
                existing = cls._auth_provider_registry.get_provider(scheme_type)
                if existing is not None and existing is not provider:
                    logger.warning(
                        "An auth provider is already registered for %s; ignoring the new one.",
                        getattr(scheme_type, "__name__", scheme_type),
                    )
                    continue
                cls._auth_provider_registry.register(scheme_type, provider)

    def register_credential_exchanger(
        self, credential_type: AuthCredentialTypes, exchanger_instance: BaseCredentialExchanger
    ) -> None:
        """Exchange credentials of ``credential_type`` with ``exchanger_instance``."""
        self._exchanger_registry.register(credential_type, exchanger_instance)

    def register_credential_refresher(
        self, credential_type: AuthCredentialTypes, refresher_instance: BaseCredentialRefresher
    ) -> None:
        """Refresh credentials of ``credential_type`` with ``refresher_instance``."""
        self._refresher_registry.register(credential_type, refresher_instance)

    async def request_credential(self, context: CredentialContext) -> None:
        """Ask the client for the credential (``tool_context.request_credential``).

        Raises:
            TypeError: ``context`` is not a tool's context.
        """
        request = getattr(context, "request_credential", None)
        if request is None:
            raise TypeError(
                "request_credential needs a ToolContext (a tool's context), not a "
                f"{type(context).__name__}."
            )
        request(self._auth_config)

    async def get_auth_credential(self, context: CredentialContext) -> AuthCredential | None:
        """The credential to call the API with, or None when the user must provide it.

        Raises:
            AuthConfigurationError: The config cannot work (see ``_validate_credential``).
            CredentialExchangeError: A client-credentials or service-account exchange failed.
        """
        if isinstance(self._auth_config.auth_scheme, CustomAuthScheme):
            return await self._from_provider(context)
        key = (context.session.app_name, context.user_id, self._auth_config.credential_key or "")
        async with self._credential_locks.get(key):
            return await self._get_auth_credential(context)

    async def _get_auth_credential(self, context: CredentialContext) -> AuthCredential | None:
        await self._validate_credential()
        raw = self._auth_config.raw_auth_credential
        if raw is not None and self._is_credential_ready() and _carries_secret(raw):
            return raw.model_copy(deep=True)
        if raw is not None and raw.auth_type == AuthCredentialTypes.SERVICE_ACCOUNT:
            # The application's own identity: nothing to ask the user, nothing to save (the
            # exchanger caches the token). google-adk only gets here for a client-credentials
            # scheme and otherwise asks the user, who cannot help.
            bearer, _ = await self._exchange_credential(raw.model_copy(deep=True))
            return bearer
        credential, from_response = await self._find_credential(context)
        if credential is None:
            return None
        try:
            credential, exchanged = await self._exchange_credential(credential)
        except CredentialExchangeError as exc:
            if self._is_client_credentials_flow():
                raise
            logger.warning("%s The user will be asked for the credential again.", exc)
            return None
        refreshed = False
        if not exchanged:
            renewed = await self._renew(credential)
            if renewed is None:
                return None
            credential, refreshed, exchanged = renewed
        if _has_unredeemed_auth_code(credential):
            logger.warning(
                "Discarding an authorization code that was not exchanged for a token; "
                "the user will be asked to sign in again."
            )
            return None
        if from_response or exchanged or refreshed:
            await self._save_credential(context, credential)
        return credential

    async def _find_credential(
        self, context: CredentialContext
    ) -> tuple[AuthCredential | None, bool]:
        """The credential to start from, and whether it is the user's answer.

        The saved one, else the user's answer, else (client credentials) the configured one.
        """
        credential = await self._load_existing_credential(context)
        # A dead code must not hide a fresh answer from the user.
        if credential is not None and not _has_unredeemed_auth_code(credential):
            saved = _with_configured_client_secret(
                credential=credential, raw_credential=self._auth_config.raw_auth_credential
            )
            return saved, False
        credential = await self._load_from_auth_response(context)
        if credential is not None:
            return credential, True
        raw = self._auth_config.raw_auth_credential
        if self._is_client_credentials_flow() and raw is not None:
            return raw.model_copy(deep=True), False
        return None, False

    async def _renew(self, credential: AuthCredential) -> tuple[AuthCredential, bool, bool] | None:
        """Refresh if expired: ``(credential, refreshed, exchanged)``; None to ask the user."""
        try:
            credential, refreshed = await self._refresh_credential(credential)
        except CredentialRefresherError as exc:
            raw = self._auth_config.raw_auth_credential
            if self._is_client_credentials_flow() and raw is not None:
                # No user to ask: get a new token with the client's credentials.
                credential, exchanged = await self._exchange_credential(raw.model_copy(deep=True))
                return credential, False, exchanged
            logger.warning("%s The user will be asked for the credential again.", exc)
            return None
        return credential, refreshed, False

    async def _from_provider(self, context: CredentialContext) -> AuthCredential | None:
        scheme = self._auth_config.auth_scheme
        assert isinstance(scheme, CustomAuthScheme)
        if type(scheme) is CustomAuthScheme:
            scheme = _rehydrate_custom_scheme(scheme, CustomAuthScheme.__subclasses__())
            self._auth_config.auth_scheme = scheme
        provider = self._auth_provider_registry.get_provider(scheme)
        if provider is None:
            raise AuthConfigurationError(
                f"No auth provider registered for custom auth scheme {scheme.type_!r}. "
                "Register it using `CredentialManager.register_auth_provider(<provider>)` "
                "before the tool runs."
            )
        credential = await provider.get_auth_credential(self._auth_config, context)
        if credential is None:
            raise AuthConfigurationError(
                f"AuthProvider did not return a credential. The provider for {scheme.type_!r} "
                "must return one, or an OAuth2 credential with an auth_uri to ask the user."
            )
        oauth2 = credential.oauth2
        if oauth2 is not None and not oauth2.access_token and oauth2.auth_uri:
            # The provider needs the user's consent: the tool will ask for it.
            self._auth_config.exchanged_auth_credential = credential
            return None
        return credential

    async def _load_existing_credential(self, context: CredentialContext) -> AuthCredential | None:
        """The credential saved for this user (as stored: without the client secret)."""
        return await self._load_from_credential_service(context)

    async def _load_from_credential_service(
        self, context: CredentialContext
    ) -> AuthCredential | None:
        if context._invocation_context.credential_service is None:
            return None
        return await context.load_credential(self._auth_config)

    async def _load_from_auth_response(self, context: CredentialContext) -> AuthCredential | None:
        get_auth_response = getattr(context, "get_auth_response", None)
        answer: Any
        if get_auth_response is not None:
            answer = get_auth_response(self._auth_config)
        else:
            answer = context.state.get("temp:" + (self._auth_config.credential_key or ""))
            if isinstance(answer, dict):
                answer = AuthCredential.model_validate(answer)
        if not isinstance(answer, AuthCredential):
            return None
        # What came back through the client may name any client: use the tool's own.
        return _with_configured_client(
            credential=answer, raw_credential=self._auth_config.raw_auth_credential
        )

    async def _exchange_credential(self, credential: AuthCredential) -> tuple[AuthCredential, bool]:
        exchanger = self._exchanger_registry.get_exchanger(credential.auth_type)
        if exchanger is None:
            return credential, False
        result = await exchanger.exchange(credential, self._auth_config.auth_scheme)
        return result.credential, result.was_exchanged

    async def _refresh_credential(self, credential: AuthCredential) -> tuple[AuthCredential, bool]:
        refresher = self._refresher_registry.get_refresher(credential.auth_type)
        if refresher is None:
            return credential, False
        scheme = self._auth_config.auth_scheme
        if not await refresher.is_refresh_needed(credential, scheme):
            return credential, False
        return await refresher.refresh(credential, scheme), True

    async def _save_credential(
        self, context: CredentialContext, credential: AuthCredential
    ) -> None:
        if context._invocation_context.credential_service is None:
            return
        config = self._auth_config.model_copy(deep=True)
        config.exchanged_auth_credential = credential
        await context.save_credential(config)

    async def _validate_credential(self) -> None:
        """Check the config can work; discover missing OAuth2 endpoints.

        Raises:
            AuthConfigurationError: An OAuth2 / OpenID scheme without a configured client,
                an OAuth2 credential without its ``oauth2`` section, or OAuth2 endpoints
                missing and not discoverable.
        """
        config = self._auth_config
        scheme_type = getattr(config.auth_scheme, "type_", None)
        raw = config.raw_auth_credential
        if raw is None and scheme_type in (AuthSchemeType.oauth2, AuthSchemeType.openIdConnect):
            raise AuthConfigurationError(
                f"raw_auth_credential is required for auth scheme type {scheme_type.value}: "
                "set the OAuth2 client (id, and secret unless it is public) in the AuthConfig."
            )
        if raw is not None and raw.auth_type in _OAUTH2_TYPES and raw.oauth2 is None:
            raise AuthConfigurationError(
                "auth_config.raw_auth_credential.oauth2 required for credential type "
                f"{raw.auth_type.value}: set the OAuth2 client there."
            )
        if self._missing_oauth_info() and not await self._populate_auth_scheme():
            raise AuthConfigurationError(
                "OAuth scheme info is missing (authorization / token URL) and could not be "
                "discovered: set them in the flows, or set issuer_url (ExtendedOAuth2) to a "
                "server that publishes RFC 8414 metadata."
            )

    async def _populate_auth_scheme(self) -> bool:
        """Fill the scheme's missing endpoints from its issuer's metadata; False if it can't."""
        scheme = self._auth_config.auth_scheme
        if not isinstance(scheme, ExtendedOAuth2) or not scheme.issuer_url:
            logger.warning("OAuth2 endpoints are missing and there is no issuer_url to discover.")
            return False
        metadata = await self._discovery_manager.discover_auth_server_metadata(scheme.issuer_url)
        if metadata is None:
            logger.warning("OAuth2 endpoint discovery at %s found nothing.", scheme.issuer_url)
            return False
        flows = scheme.flows
        for flow in (flows.implicit, flows.authorizationCode):
            if flow is not None and not flow.authorizationUrl:
                flow.authorizationUrl = metadata.authorization_endpoint
        for token_flow in (flows.password, flows.clientCredentials, flows.authorizationCode):
            if token_flow is not None and not token_flow.tokenUrl:
                token_flow.tokenUrl = metadata.token_endpoint
        return True

    def _missing_oauth_info(self) -> bool:
        scheme = self._auth_config.auth_scheme
        if not isinstance(scheme, OAuth2):
            return False
        flows = scheme.flows
        return bool(
            (flows.implicit and not flows.implicit.authorizationUrl)
            or (flows.password and not flows.password.tokenUrl)
            or (flows.clientCredentials and not flows.clientCredentials.tokenUrl)
            or (
                flows.authorizationCode
                and not (
                    flows.authorizationCode.authorizationUrl and flows.authorizationCode.tokenUrl
                )
            )
        )

    def _is_credential_ready(self) -> bool:
        """Whether the configured credential's kind is used as it is (API key, HTTP)."""
        raw = self._auth_config.raw_auth_credential
        return raw is not None and raw.auth_type in _READY_TYPES

    def _is_client_credentials_flow(self) -> bool:
        return grant_type_of(self._auth_config.auth_scheme) is OAuthGrantType.CLIENT_CREDENTIALS
