"""RS256 JWTs for the test authorization server (joserfc, Authlib's JOSE library)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import GuestProtocol, RSAKey

__all__ = ["JwtRefused", "sign_jwt", "verify_jwt"]


class JwtRefused(ValueError):
    """The token is not a valid RS256 JWT of a known key (the message says why)."""


def sign_jwt(key: rsa.RSAPrivateKey, claims: dict[str, Any], *, key_id: str) -> str:
    """An RS256 JWT of ``claims`` signed by ``key``, its header naming ``key_id``."""
    header = {"alg": "RS256", "typ": "JWT", "kid": key_id}
    return jwt.encode(header, claims, RSAKey.import_key(key))


def verify_jwt(
    token: str, key_for: Callable[[dict[str, Any]], rsa.RSAPublicKey | None]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The header and claims of an RS256 JWT whose signature and ``exp`` hold.

    ``key_for`` gets the header, with the (not yet trusted) ``iss`` claim as ``_iss``.

    Raises:
        JwtRefused: Not a JWT, another algorithm, an unknown key, a bad signature, expired.
    """
    found: list[bool] = []

    def key(guest: GuestProtocol) -> RSAKey:
        header = dict(guest.headers())
        try:
            claims = json.loads(getattr(guest, "payload", b"") or b"{}")
        except ValueError:
            claims = {}
        public = key_for({**header, "_iss": claims.get("iss")})
        if public is None:
            found.append(False)
            raise JwtRefused("the assertion's issuer is not a known account")
        return RSAKey.import_key(public)

    try:
        decoded = jwt.decode(token, key, algorithms=["RS256"])
    except JwtRefused:
        raise
    except (JoseError, ValueError) as exc:
        raise JwtRefused(f"invalid JWT ({type(exc).__name__})") from None
    exp = decoded.claims.get("exp")
    if not isinstance(exp, int) or exp <= time.time():
        raise JwtRefused("the JWT has expired")
    return dict(decoded.header), dict(decoded.claims)
