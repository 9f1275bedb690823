"""ServiceAccountCredentialExchanger: a Google service account becomes a bearer token.

The key (or Application Default Credentials) signs a JWT assertion that the account's token
endpoint answers with an access token (RFC 7523) or, for service-to-service calls, an ID
token for an audience. google-auth does the work with its ``requests`` transport, always in
a worker thread: nothing here blocks the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any
from weakref import WeakValueDictionary

from adk_runtime.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    HttpAuth,
    HttpCredentials,
    ServiceAccount,
    ServiceAccountCredential,
)
from adk_runtime.auth.auth_schemes import AuthScheme
from adk_runtime.auth.exchanger.base_credential_exchanger import (
    BaseCredentialExchanger,
    CredentialExchangeError,
    ExchangeResult,
)

if TYPE_CHECKING:
    from google.auth.transport.requests import Request

__all__ = [
    "DEFAULT_SCOPES",
    "AuthCredentialMissingError",
    "ServiceAccountCredentialExchanger",
    "reset_token_cache",
]

logger = logging.getLogger(__name__)

DEFAULT_SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
"""The scopes asked for with Application Default Credentials when none are configured."""

EXPIRY_MARGIN_SECONDS = 300
"""A cached token is used until this many seconds before it expires, then replaced."""

_ASSUMED_LIFETIME_SECONDS = 3600  # when the server says nothing about expiry
_QUOTA_PROJECT_HEADER = "x-goog-user-project"
_HIDDEN = "<hidden>"
# A JWT (an assertion or an ID token) a server may echo back in its error answer.
_JWT = re.compile(r"[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")
_MAX_REASON_CHARS = 300


class AuthCredentialMissingError(CredentialExchangeError, ValueError):
    """The service-account credential cannot be exchanged as configured.

    Its ``service_account`` section is missing, or a key is configured without scopes.
    A ``ValueError`` too, like google-adk's error of the same name.
    """


@dataclass(frozen=True)
class _CachedToken:
    credential: AuthCredential
    expires_at: float


class _TokenCache:
    """Tokens by configuration, shared by every exchanger of the process; thread-safe.

    Each key also has a lock, held while its token is fetched, so that concurrent callers
    (several tools, several event loops) ask the token endpoint once.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._tokens: dict[tuple[Any, ...], _CachedToken] = {}
        self._fetch_locks: WeakValueDictionary[tuple[Any, ...], threading.Lock] = (
            WeakValueDictionary()
        )

    def get(self, key: tuple[Any, ...]) -> AuthCredential | None:
        """A copy of the cached token for ``key``, unless it is (nearly) expired."""
        with self._guard:
            cached = self._tokens.get(key)
        if cached is None or time.time() >= cached.expires_at - EXPIRY_MARGIN_SECONDS:
            return None
        return cached.credential.model_copy(deep=True)

    def put(self, key: tuple[Any, ...], credential: AuthCredential, expires_at: float) -> None:
        with self._guard:
            self._tokens[key] = _CachedToken(credential.model_copy(deep=True), expires_at)

    def fetch_lock(self, key: tuple[Any, ...]) -> threading.Lock:
        with self._guard:
            lock = self._fetch_locks.get(key)
            if lock is None:
                lock = self._fetch_locks[key] = threading.Lock()
            return lock

    def clear(self) -> None:
        with self._guard:
            self._tokens.clear()


_CACHE = _TokenCache()


def reset_token_cache() -> None:
    """Forget every cached service-account token (the next exchange asks the server)."""
    _CACHE.clear()


def _cache_key(config: ServiceAccount) -> tuple[Any, ...]:
    """What a token depends on: the identity, the scopes, and the ID token's audience.

    A key is named by its id and account as in google-adk, plus its token endpoint and a
    digest of the key itself, so that two different keys never share a token.
    """
    scopes = tuple(config.scopes or ())
    wanted = (scopes, bool(config.use_id_token), config.audience)
    key = config.service_account_credential
    if config.use_default_credential or key is None:
        return ("default", *wanted)
    digest = hashlib.sha256(key.private_key.encode()).hexdigest()
    return ("key", key.private_key_id, key.client_email, key.token_uri, digest, *wanted)


def _bearer(token: str, headers: dict[str, str] | None = None) -> AuthCredential:
    return AuthCredential(
        auth_type=AuthCredentialTypes.HTTP,
        http=HttpAuth.model_validate(
            {
                "scheme": "bearer",
                "credentials": HttpCredentials.model_validate({"token": token}),
                "additional_headers": headers or None,
            }
        ),
    )


def _timestamp(expiry: datetime | None) -> float:
    """google-auth's expiry (a naive UTC datetime) as a Unix time; an hour if unknown."""
    if expiry is None:
        return time.time() + _ASSUMED_LIFETIME_SECONDS
    if expiry.tzinfo is None:
        expiry = expiry.replace(tzinfo=timezone.utc)
    return expiry.timestamp()


def _id_token_expiry(token: str) -> float:
    from google.auth import jwt

    try:
        exp = jwt.decode(token, verify=False).get("exp")  # type: ignore[no-untyped-call]
    except ValueError:
        exp = None
    return float(exp) if isinstance(exp, (int, float)) else time.time() + _ASSUMED_LIFETIME_SECONDS


def _describe(exc: Exception, config: ServiceAccount) -> str:
    """A one-line reason for a failed exchange that carries no key, assertion or token."""
    from google.auth import exceptions

    details = exc.args[1] if len(exc.args) > 1 else None
    if isinstance(exc, exceptions.RefreshError) and isinstance(details, Mapping):
        error = details.get("error") or "error"
        description = details.get("error_description")
        reason = f"{error}: {description}" if description else str(error)
    else:
        reason = f"{type(exc).__name__}: {exc.args[0] if exc.args else ''}"
    key = config.service_account_credential
    if key is not None:
        reason = reason.replace(key.private_key, _HIDDEN)
        for line in key.private_key.splitlines():
            if len(line.strip()) >= 16 and "PRIVATE KEY" not in line:
                reason = reason.replace(line.strip(), _HIDDEN)
    reason = _JWT.sub(_HIDDEN, reason)
    return reason[:_MAX_REASON_CHARS]


class ServiceAccountCredentialExchanger(BaseCredentialExchanger):
    """Exchanges a ``SERVICE_ACCOUNT`` credential for an HTTP bearer credential.

    - With ``service_account_credential`` (a JSON key's fields), the key signs the request
      to the key's ``token_uri``: an access token for ``scopes`` (required), or with
      ``use_id_token`` an ID token whose audience is ``audience``.
    - With ``use_default_credential``, Application Default Credentials are used
      (``GOOGLE_APPLICATION_CREDENTIALS``, gcloud's credentials, the metadata server);
      without scopes the access token is for ``DEFAULT_SCOPES``, and it carries the
      credentials' quota project (else their project) in ``x-goog-user-project``.

    Tokens are cached for the process, by configuration, until ``EXPIRY_MARGIN_SECONDS``
    before they expire; concurrent exchanges of one configuration make one request.
    """

    async def exchange(
        self, auth_credential: AuthCredential, auth_scheme: AuthScheme | None = None
    ) -> ExchangeResult:
        """Exchange ``auth_credential`` for a bearer token, in a worker thread.

        Returns:
            ``AuthCredential(auth_type=HTTP, http=HttpAuth(scheme="bearer", ...))`` and
            ``was_exchanged=True``.

        Raises:
            AuthCredentialMissingError: No ``service_account`` section, or a key without
                scopes.
            CredentialExchangeError: The token endpoint refused the key, could not be
                reached, or no default credentials were found.
        """
        credential = await asyncio.to_thread(self.exchange_credential, auth_scheme, auth_credential)
        return ExchangeResult(credential, True)

    def exchange_credential(
        self, auth_scheme: AuthScheme | None, auth_credential: AuthCredential | None = None
    ) -> AuthCredential:
        """The blocking exchange, as google-adk names it: call it from a worker thread.

        ``auth_scheme`` is not used (the key names its token endpoint). Raises as
        :meth:`exchange` does.
        """
        config = auth_credential.service_account if auth_credential is not None else None
        if config is None:
            raise AuthCredentialMissingError(
                "The service-account credential has no service_account section: set "
                "service_account=ServiceAccount(service_account_credential=<the JSON key's "
                "fields>, scopes=[...]), or ServiceAccount(use_default_credential=True) to use "
                "Application Default Credentials."
            )
        if not config.use_default_credential and not config.use_id_token and not config.scopes:
            raise AuthCredentialMissingError(
                "A service-account key needs scopes for an access token: set "
                "ServiceAccount.scopes (or use_id_token with an audience)."
            )
        key = _cache_key(config)
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        with _CACHE.fetch_lock(key):
            cached = _CACHE.get(key)  # another thread may have fetched it meanwhile
            if cached is not None:
                return cached
            credential, expires_at = self._fetch(config)
            _CACHE.put(key, credential, expires_at)
            return credential

    def _fetch(self, config: ServiceAccount) -> tuple[AuthCredential, float]:
        from google.auth import exceptions
        from google.auth.transport.requests import Request

        what = "an ID token" if config.use_id_token else "an access token"
        request = Request()
        try:
            if config.use_id_token:
                result = self._fetch_id_token(config, request)
            else:
                result = self._fetch_access_token(config, request)
        except (exceptions.GoogleAuthError, ValueError) as exc:
            raise CredentialExchangeError(
                f"Exchanging the service account {_account(config)} for {what} failed "
                f"({_describe(exc, config)}). Check the key (or the Application Default "
                "Credentials), its scopes or audience, and that the token endpoint is reachable."
            ) from None
        finally:
            request.session.close()
        logger.debug("Obtained %s for the service account %s.", what, _account(config))
        return result

    def _fetch_access_token(
        self, config: ServiceAccount, request: Request
    ) -> tuple[AuthCredential, float]:
        import google.auth
        from google.oauth2 import service_account

        key = config.service_account_credential
        headers: dict[str, str] = {}
        if config.use_default_credential or key is None:
            credentials, project_id = google.auth.default(
                scopes=list(config.scopes or DEFAULT_SCOPES), request=request
            )
            quota_project = getattr(credentials, "quota_project_id", None) or project_id
            if quota_project:
                headers[_QUOTA_PROJECT_HEADER] = quota_project
        else:
            credentials = service_account.Credentials.from_service_account_info(  # type: ignore[no-untyped-call]
                _key_info(key), scopes=config.scopes
            )
        credentials.refresh(request)  # type: ignore[no-untyped-call]
        token = credentials.token
        if not isinstance(token, str) or not token:
            raise CredentialExchangeError("The token endpoint answered without an access token.")
        return _bearer(token, headers), _timestamp(credentials.expiry)

    def _fetch_id_token(
        self, config: ServiceAccount, request: Request
    ) -> tuple[AuthCredential, float]:
        from google.oauth2 import id_token, service_account

        audience = config.audience or ""
        key = config.service_account_credential
        if config.use_default_credential or key is None:
            token: Any = id_token.fetch_id_token(request, audience)  # type: ignore[no-untyped-call]
            expires_at = _id_token_expiry(token) if isinstance(token, str) else 0.0
        else:
            credentials = service_account.IDTokenCredentials.from_service_account_info(  # type: ignore[no-untyped-call]
                _key_info(key), target_audience=audience
            )
            credentials.refresh(request)
            token = credentials.token
            expires_at = _timestamp(credentials.expiry)
        if not isinstance(token, str) or not token:
            raise CredentialExchangeError("The token endpoint answered without an ID token.")
        return _bearer(token), expires_at


def _key_info(key: ServiceAccountCredential) -> dict[str, Any]:
    """The key as its JSON file has it (google-auth reads ``type``, not ``type_``)."""
    info = key.model_dump()
    info["type"] = info.pop("type_", None) or "service_account"
    return info


def _account(config: ServiceAccount) -> str:
    key = config.service_account_credential
    if config.use_default_credential or key is None:
        return "of the Application Default Credentials"
    return key.client_email
