"""The HTTP headers that carry a credential (for MCP servers and other HTTP tool sources)."""

from __future__ import annotations

import base64
import logging

from fastapi.openapi.models import APIKeyIn

from adk_runtime.auth.auth_credential import AuthCredential
from adk_runtime.auth.auth_schemes import AuthScheme

__all__ = ["auth_headers"]

logger = logging.getLogger(__name__)


def _http_headers(credential: AuthCredential) -> dict[str, str]:
    http = credential.http
    assert http is not None
    secret = http.credentials
    scheme = http.scheme.lower()
    headers: dict[str, str] = {}
    if scheme == "basic" and secret.username and secret.password:
        pair = f"{secret.username}:{secret.password}".encode()
        headers["Authorization"] = "Basic " + base64.b64encode(pair).decode()
    elif secret.token:
        headers["Authorization"] = (
            f"{'Bearer' if scheme == 'bearer' else http.scheme} {secret.token}"
        )
    headers.update(http.additional_headers or {})
    return headers


def auth_headers(
    credential: AuthCredential | None, auth_scheme: AuthScheme | None = None
) -> dict[str, str] | None:
    """The headers that present ``credential``, or None when it cannot be sent as headers.

    An OAuth2 access token and an HTTP bearer token go in ``Authorization: Bearer``; HTTP
    basic as ``Authorization: Basic``; an API key in the header ``auth_scheme`` names (a
    key meant for the query or a cookie is not sent, with a warning).
    """
    if credential is None:
        return None
    if credential.oauth2 is not None:
        token = credential.oauth2.access_token
        return {"Authorization": f"Bearer {token}"} if token else None
    if credential.http is not None:
        return _http_headers(credential) or None
    if credential.api_key and auth_scheme is not None:
        where = getattr(auth_scheme, "in_", APIKeyIn.header)
        name = getattr(auth_scheme, "name", None)
        if where != APIKeyIn.header or not name:
            logger.warning(
                "An API key can be sent in a header only (this scheme puts it in the %s).",
                getattr(where, "value", where),
            )
            return None
        return {name: credential.api_key}
    return None
