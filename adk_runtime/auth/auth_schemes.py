"""How a tool's API authenticates: OpenAPI 3 security schemes (FastAPI's models).

``AuthScheme`` is any OpenAPI security scheme (``fastapi.openapi.models``: ``APIKey``,
``HTTPBase``, ``HTTPBearer``, ``OAuth2``, ``OpenIdConnect``), an OpenID Connect scheme with
its endpoints spelled out (``OpenIdConnectWithConfig``), or an application's own scheme
(a subclass of ``CustomAuthScheme``), as in google-adk.
"""

from __future__ import annotations

from enum import Enum

from fastapi.openapi.models import (
    OAuth2,
    OAuthFlows,
    SecurityBase,
    SecurityScheme,
    SecuritySchemeType,
)
from pydantic import Field

from adk_runtime.auth.auth_credential import BaseModelWithConfig

__all__ = [
    "AuthScheme",
    "AuthSchemeType",
    "CustomAuthScheme",
    "ExtendedOAuth2",
    "OAuthGrantType",
    "OpenIdConnectWithConfig",
]


class OpenIdConnectWithConfig(SecurityBase):
    """OpenID Connect with its provider's endpoints given (no discovery needed)."""

    type_: SecuritySchemeType = Field(default=SecuritySchemeType.openIdConnect, alias="type")
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str | None = None
    revocation_endpoint: str | None = None
    token_endpoint_auth_methods_supported: list[str] | None = None
    grant_types_supported: list[str] | None = None
    scopes: list[str] | None = None


class CustomAuthScheme(BaseModelWithConfig):
    """Base of an application's own scheme; a subclass gives ``type_`` a default."""

    type_: str = Field(alias="type")


AuthScheme = SecurityScheme | OpenIdConnectWithConfig | CustomAuthScheme
"""Any scheme a tool may ask for."""

AuthSchemeType = SecuritySchemeType
"""OpenAPI's security scheme types (``apiKey``, ``http``, ``oauth2``, ``openIdConnect``)."""


class OAuthGrantType(str, Enum):
    """The OAuth2 flow a scheme uses."""

    CLIENT_CREDENTIALS = "client_credentials"
    AUTHORIZATION_CODE = "authorization_code"
    IMPLICIT = "implicit"
    PASSWORD = "password"

    @staticmethod
    def from_flow(flow: OAuthFlows) -> OAuthGrantType | None:
        """The grant a scheme's flows declare (client credentials first), or None."""
        for declared, grant in (
            (flow.clientCredentials, OAuthGrantType.CLIENT_CREDENTIALS),
            (flow.authorizationCode, OAuthGrantType.AUTHORIZATION_CODE),
            (flow.implicit, OAuthGrantType.IMPLICIT),
            (flow.password, OAuthGrantType.PASSWORD),
        ):
            if declared:
                return grant
        return None


class ExtendedOAuth2(OAuth2):
    """OAuth2 whose endpoints are discovered from the issuer's metadata (RFC 8414)."""

    issuer_url: str | None = None
