"""Schemes, credentials, authorization URIs and service-account keys for the loopback tests."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any
from urllib.parse import urlencode

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi.openapi.models import (
    APIKey,
    APIKeyIn,
    OAuth2,
    OAuthFlowAuthorizationCode,
    OAuthFlowClientCredentials,
    OAuthFlows,
)

from adk_runtime.auth import (
    AuthConfig,
    AuthCredential,
    AuthCredentialTypes,
    OAuth2Auth,
    ServiceAccount,
    ServiceAccountCredential,
)
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


SERVICE_ACCOUNT_EMAIL = "agent-sa@test-project.iam.gserviceaccount.com"


def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def pem(key: rsa.RSAPrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode("ascii")


def service_account_key(
    server: OAuthServer,
    key: rsa.RSAPrivateKey,
    *,
    key_id: str | None = None,
    email: str = SERVICE_ACCOUNT_EMAIL,
    register: bool = True,
) -> dict[str, str]:
    """A service-account JSON key file's fields, its token_uri the loopback server's.

    With ``register`` the server accepts assertions signed by ``key`` (a new key id each
    time unless given, so that no two tests share a cached token).
    """
    key_id = key_id or secrets.token_hex(20)
    if register:
        server.register_service_account(email, key.public_key(), key_id=key_id)
    return {
        "type": "service_account",
        "project_id": "test-project",
        "private_key_id": key_id,
        "private_key": pem(key),
        "client_email": email,
        "client_id": "1234567890",
        "auth_uri": server.authorization_endpoint,
        "token_uri": server.token_endpoint,
        "auth_provider_x509_cert_url": f"{server.base_url}/certs",
        "client_x509_cert_url": f"{server.base_url}/certs/{email}",
        "universe_domain": "googleapis.com",
    }


def service_account_credential(
    key_file: dict[str, str] | None = None, **options: Any
) -> AuthCredential:
    """A ``SERVICE_ACCOUNT`` credential: ``key_file``'s key, or ADC when it is None."""
    account: dict[str, Any] = dict(options)
    if key_file is None:
        account["use_default_credential"] = True
    else:
        account["service_account_credential"] = ServiceAccountCredential.model_validate(key_file)
    return AuthCredential(
        auth_type=AuthCredentialTypes.SERVICE_ACCOUNT,
        service_account=ServiceAccount.model_validate(account),
    )


def api_key_config(key: str | None = None, *, credential_key: str = "crm") -> AuthConfig:
    """An API-key ``AuthConfig`` under ``credential_key``; with ``key``, the credential to save."""
    return AuthConfig(
        auth_scheme=APIKey(**{"in": APIKeyIn.header, "name": "X-Key"}),
        exchanged_auth_credential=(
            AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key=key) if key else None
        ),
        credential_key=credential_key,
    )
