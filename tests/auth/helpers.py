"""Schemes, credentials and authorization URIs for the tests against the loopback server."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any
from urllib.parse import urlencode

from fastapi.openapi.models import (
    OAuth2,
    OAuthFlowAuthorizationCode,
    OAuthFlowClientCredentials,
    OAuthFlows,
)

from adk_runtime.auth import AuthCredential, AuthCredentialTypes, OAuth2Auth
from tests.auth.oauth_server import OAuthServer

CLIENT_ID = "agent-client"
CLIENT_SECRET = "agent-secret-value-42"
PUBLIC_CLIENT_ID = "public-client"
REDIRECT_URI = "http://127.0.0.1/callback"


def code_scheme(server: OAuthServer) -> OAuth2:
    return OAuth2(
        flows=OAuthFlows(
            authorizationCode=OAuthFlowAuthorizationCode(
                authorizationUrl=server.authorization_endpoint,
                tokenUrl=server.token_endpoint,
                scopes={"read": "read your data"},
            )
        )
    )


def client_credentials_scheme(server: OAuthServer) -> OAuth2:
    return OAuth2(
        flows=OAuthFlows(
            clientCredentials=OAuthFlowClientCredentials(
                tokenUrl=server.token_endpoint, scopes={"read": "read", "write": "write"}
            )
        )
    )


def oauth2_credential(**fields: Any) -> AuthCredential:
    fields.setdefault("client_id", CLIENT_ID)
    fields.setdefault("client_secret", CLIENT_SECRET)
    # model_validate: pyright does not see the defaults of the Annotated secret fields.
    return AuthCredential.model_validate(
        {"auth_type": AuthCredentialTypes.OAUTH2, "oauth2": OAuth2Auth(**fields)}
    )


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def authorization_uri(
    server: OAuthServer,
    *,
    client_id: str = CLIENT_ID,
    state: str = "state-123",
    code_challenge: str | None = None,
) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT_URI,
        "state": state,
        "scope": "read",
    }
    if code_challenge is not None:
        params.update(code_challenge=code_challenge, code_challenge_method="S256")
    return f"{server.authorization_endpoint}?{urlencode(params)}"
