"""Tool authentication (``google.adk.auth`` → here); needs the ``auth`` extra.

A tool that needs the end user's credential (an OAuth2 sign-in, an API key, a bearer token)
calls ``tool_context.request_credential(auth_config)``; the agent yields an
``adk_request_credential`` function call and the invocation pauses until the user answers,
then the tool runs again and reads the credential with ``tool_context.get_auth_response``.
See "Tool authentication" in ``docs/how-to/agents/tools.md``.

Importing this package without FastAPI's OpenAPI models (the auth schemes are OpenAPI
security schemes, as in google-adk) raises ``ConfigurationError`` naming the extra.
"""

from adk_runtime.errors import ConfigurationError

try:
    import fastapi.openapi.models  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without fastapi
    raise ConfigurationError(
        "Tool authentication needs the auth extra, which is not installed: "
        "pip install 'adk-runtime[auth]' (or 'adk-runtime[all]')."
    ) from exc

from adk_runtime.auth.auth_credential import (
    AuthCredential,
    AuthCredentialTypes,
    HttpAuth,
    HttpCredentials,
    OAuth2Auth,
    ServiceAccount,
    ServiceAccountCredential,
)
from adk_runtime.auth.auth_handler import AuthHandler
from adk_runtime.auth.auth_schemes import (
    AuthScheme,
    AuthSchemeType,
    CustomAuthScheme,
    OAuthGrantType,
    OpenIdConnectWithConfig,
)
from adk_runtime.auth.auth_tool import AuthConfig, AuthToolArguments
from adk_runtime.auth.base_auth_provider import BaseAuthProvider

__all__ = [
    "AuthConfig",
    "AuthCredential",
    "AuthCredentialTypes",
    "AuthHandler",
    "AuthScheme",
    "AuthSchemeType",
    "AuthToolArguments",
    "BaseAuthProvider",
    "CustomAuthScheme",
    "HttpAuth",
    "HttpCredentials",
    "OAuth2Auth",
    "OAuthGrantType",
    "OpenIdConnectWithConfig",
    "ServiceAccount",
    "ServiceAccountCredential",
]
