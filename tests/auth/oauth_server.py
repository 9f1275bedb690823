"""A real OAuth2 authorization server on loopback, for tests (starlette + uvicorn, one thread).

``running_oauth_server(clients={"cid": "secret", "public": None})`` starts it on a free
127.0.0.1 port and stops it on exit. A client whose secret is None is a public client: it
authenticates with ``client_id`` alone and must use PKCE.

What it implements (enough of RFC 6749, 7636, 8414, 9728 and OpenID discovery to drive a
real client end to end):

- ``GET /authorize``: the authorization endpoint. It checks the client, the redirect URI,
  the response type and the PKCE challenge, "signs in" a user without asking anything and
  redirects (302) to the redirect URI with ``code`` and ``state``. ``server.sign_in(uri)``
  does the same without the network (usable on an event loop); ``await
  server.sign_in_async(uri)`` performs the real HTTP request, as a browser would.
- ``POST /token``: ``authorization_code`` (client authentication by ``client_secret_basic``,
  ``client_secret_post`` or, for public clients, none; PKCE ``S256``/``plain``; the redirect
  URI must repeat the one authorized; codes are single use), ``client_credentials``
  (confidential clients only) and ``refresh_token`` (rotates the refresh token unless
  ``rotate_refresh_tokens=False``). Errors are RFC 6749 JSON (``invalid_grant``,
  ``invalid_client`` with 401, ``invalid_request``, ``unauthorized_client``,
  ``unsupported_grant_type``). Every request is recorded in ``server.token_requests``.
  Also the JWT bearer grant (RFC 7523) Google service accounts use: no client
  authentication; the RS256 ``assertion`` must be signed by a key registered with
  ``server.register_service_account`` and carry ``iss`` (the account), ``aud`` (this token
  endpoint, or Google's, which google-auth always names), a live ``exp`` and a ``scope``
  (answered with an access token) or a ``target_audience`` (answered with an ``id_token``
  the server signs; ``server.id_token_claims`` checks one).
- ``GET /api/me``: a protected resource answering who the bearer token belongs to (401 with
  ``WWW-Authenticate`` when the token is missing, unknown or expired); an ID token is
  accepted when its audience is ``server.resource_url``.
- Discovery: ``/.well-known/oauth-authorization-server``, ``/.well-known/openid-configuration``,
  ``/.well-known/oauth-protected-resource`` (resource = the base URL) and
  ``/.well-known/oauth-protected-resource/api`` (resource = ``<base>/api``).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import secrets
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

import httpx
import uvicorn
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.auth._jwt import JwtRefused, sign_jwt, verify_jwt

__all__ = ["OAuthServer", "SignInError", "TokenRequest", "running_oauth_server", "sign_jwt"]

CODE_LIFETIME_SECONDS = 120
JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
GOOGLE_TOKEN_ENDPOINT = "https://oauth2.googleapis.com/token"
ASSERTION_MAX_LIFETIME_SECONDS = 3600
USER_HEADER = "X-Test-User"


class SignInError(AssertionError):
    """The authorization request was refused without a redirect (bad client or redirect URI)."""


@dataclass
class TokenRequest:
    """One request the token endpoint answered."""

    grant_type: str | None
    client_id: str | None
    auth_method: str | None
    """``client_secret_basic``, ``client_secret_post``, ``none``, ``jwt-bearer`` (a signed
    assertion: ``client_id`` is then its issuer), or None when unauthenticated."""
    error: str | None
    """The RFC 6749 error code answered, or None when tokens were issued."""
    form: dict[str, str] = field(repr=False)


@dataclass
class _Grant:
    client_id: str
    user: str
    scope: str
    redirect_uri: str
    code_challenge: str | None
    code_challenge_method: str | None
    issued_at: float
    used: bool = False


@dataclass
class _Token:
    client_id: str
    user: str | None
    scope: str
    expires_at: float


class _OAuthError(Exception):
    def __init__(self, error: str, description: str, status: int = 400) -> None:
        super().__init__(description)
        self.error = error
        self.description = description
        self.status = status


class OAuthServer:
    """The server's state and its HTTP app; see the module docstring.

    Attributes:
        clients: Client id to secret (None for a public client).
        expires_in: Lifetime in seconds of the access tokens it issues (0 or less: born
            expired).
        rotate_refresh_tokens: Issue a new refresh token on each refresh (and revoke the old).
        advertised_issuer: The ``issuer`` its metadata claims (default: its own base URL);
            set it to something else to act as a mixed-up or malicious server.
        echo_request_in_errors: Copy the request's form (code, refresh token, secret) into
            ``error_description``, as a careless provider might.
        token_requests: Every request the token endpoint answered, in order.
    """

    def __init__(
        self,
        clients: Mapping[str, str | None],
        *,
        expires_in: int = 3600,
        rotate_refresh_tokens: bool = True,
        redirect_uris: Mapping[str, list[str]] | None = None,
        scopes: tuple[str, ...] = ("openid", "profile", "read", "write"),
    ) -> None:
        """Serve ``clients``; ``redirect_uris`` restricts a client's redirect URIs."""
        self.clients = dict(clients)
        self.expires_in = expires_in
        self.rotate_refresh_tokens = rotate_refresh_tokens
        self.redirect_uris = dict(redirect_uris or {})
        self.scopes = scopes
        self.base_url = ""
        self.advertised_issuer: str | None = None
        self.echo_request_in_errors = False
        self.token_requests: list[TokenRequest] = []
        self._lock = threading.RLock()  # RLock: never reported as blocking by blockbuster
        self._grants: dict[str, _Grant] = {}
        self._access_tokens: dict[str, _Token] = {}
        self._refresh_tokens: dict[str, _Token] = {}
        self._service_accounts: dict[str, tuple[str, rsa.RSAPublicKey]] = {}
        self._signing_key: rsa.RSAPrivateKey | None = None
        self.app = Starlette(
            routes=[
                Route("/authorize", self._authorize_endpoint, methods=["GET"]),
                Route("/token", self._token_endpoint, methods=["POST"]),
                Route("/api/me", self._me_endpoint, methods=["GET"]),
                Route("/.well-known/oauth-authorization-server", self._as_metadata),
                Route("/.well-known/openid-configuration", self._oidc_metadata),
                Route("/.well-known/oauth-protected-resource", self._resource_metadata),
                Route("/.well-known/oauth-protected-resource/api", self._resource_metadata),
            ]
        )

    # -- addresses ---------------------------------------------------------------------------

    @property
    def issuer(self) -> str:
        """The issuer identifier (the base URL)."""
        return self.base_url

    @property
    def authorization_endpoint(self) -> str:
        """Where the user's browser is sent to sign in."""
        return f"{self.base_url}/authorize"

    @property
    def token_endpoint(self) -> str:
        """Where codes, client credentials and refresh tokens are exchanged for tokens."""
        return f"{self.base_url}/token"

    @property
    def resource_url(self) -> str:
        """The protected API (``GET <resource_url>/me`` answers the token's user)."""
        return f"{self.base_url}/api"

    # -- what tests ask ----------------------------------------------------------------------

    def token_request_count(self, grant_type: str | None = None, *, ok: bool | None = None) -> int:
        """How many token requests (of ``grant_type``; successful or not) were answered."""
        with self._lock:
            return sum(
                1
                for r in self.token_requests
                if (grant_type is None or r.grant_type == grant_type)
                and (ok is None or (r.error is None) == ok)
            )

    def sign_in(self, auth_uri: str, *, user: str = "alice") -> str:
        """Act as ``user``'s browser on ``auth_uri``: return the redirect URI it ends on.

        The result carries ``code`` and ``state`` (or ``error`` when the request is refused
        in a way the client must hear about).

        Raises:
            SignInError: The client or the redirect URI is unknown (no redirect, per RFC 6749).
        """
        params = dict(parse_qsl(urlsplit(auth_uri).query))
        try:
            return self._authorize(params, user)
        except _OAuthError as exc:
            raise SignInError(f"{exc.error}: {exc.description}") from None

    async def sign_in_async(self, auth_uri: str, *, user: str = "alice") -> str:
        """Like :meth:`sign_in`, over HTTP: GET ``auth_uri`` and return the redirect location."""
        async with httpx.AsyncClient() as client:
            response = await client.get(auth_uri, headers={USER_HEADER: user})
        if response.status_code != 302:
            raise SignInError(f"{response.status_code}: {response.text}")
        return response.headers["location"]

    def token_info(self, access_token: str) -> dict[str, Any] | None:
        """Who ``access_token`` was issued to, or None if unknown or expired."""
        with self._lock:
            token = self._access_tokens.get(access_token)
            if token is None or token.expires_at <= time.time():
                return None
            return {"user": token.user, "client_id": token.client_id, "scope": token.scope}

    def is_refresh_token_active(self, refresh_token: str) -> bool:
        """Whether ``refresh_token`` would still be accepted."""
        with self._lock:
            return refresh_token in self._refresh_tokens

    def register_service_account(
        self, email: str, public_key: rsa.RSAPublicKey, *, key_id: str
    ) -> None:
        """Accept JWT bearer assertions from ``email`` signed by its key ``key_id``."""
        with self._lock:
            self._service_accounts[email] = (key_id, public_key)

    def id_token_claims(self, token: str) -> dict[str, Any] | None:
        """The claims of an ID token this server issued and that has not expired, or None."""
        with self._lock:
            key = self._signing_key
        if key is None:
            return None
        try:
            _, claims = verify_jwt(token, lambda _header: key.public_key())
        except JwtRefused:
            return None
        return claims if claims.get("iss") == self.issuer else None

    def expire_access_tokens(self) -> None:
        """Make every access token issued so far expired."""
        with self._lock:
            for token in self._access_tokens.values():
                token.expires_at = 0.0

    # -- authorization endpoint --------------------------------------------------------------

    def _authorize(self, params: dict[str, str], user: str) -> str:
        client_id = params.get("client_id", "")
        if client_id not in self.clients:
            raise _OAuthError("invalid_client", "unknown client_id")
        redirect_uri = params.get("redirect_uri")
        if not redirect_uri:
            raise _OAuthError("invalid_request", "redirect_uri is required")
        allowed = self.redirect_uris.get(client_id)
        if allowed is not None and redirect_uri not in allowed:
            raise _OAuthError("invalid_request", "redirect_uri is not registered")
        state = params.get("state")
        challenge = params.get("code_challenge")
        method = params.get("code_challenge_method", "plain" if challenge else None)
        error: str | None = None
        if params.get("response_type") != "code":
            error = "unsupported_response_type"
        elif challenge is None and self.clients[client_id] is None:
            error = "invalid_request"  # a public client must use PKCE
        elif method not in (None, "S256", "plain"):
            error = "invalid_request"
        if error is not None:
            return _with_query(redirect_uri, {"error": error, "state": state})
        code = "code_" + secrets.token_urlsafe(24)
        with self._lock:
            self._grants[code] = _Grant(
                client_id=client_id,
                user=user,
                scope=params.get("scope", ""),
                redirect_uri=redirect_uri,
                code_challenge=challenge,
                code_challenge_method=method,
                issued_at=time.time(),
            )
        return _with_query(redirect_uri, {"code": code, "state": state})

    async def _authorize_endpoint(self, request: Request) -> Response:
        user = request.headers.get(USER_HEADER, "alice")
        try:
            location = self._authorize(dict(request.query_params), user)
        except _OAuthError as exc:
            return _error(exc)
        return RedirectResponse(location, status_code=302)

    # -- token endpoint ----------------------------------------------------------------------

    async def _token_endpoint(self, request: Request) -> Response:
        form = {key: str(value) for key, value in (await request.form()).items()}
        record = TokenRequest(
            grant_type=form.get("grant_type"),
            client_id=None,
            auth_method=None,
            error=None,
            form=form,
        )
        try:
            if record.grant_type == JWT_BEARER:
                record.auth_method = "jwt-bearer"
                with self._lock:
                    record.client_id, body = self._jwt_bearer_grant(form)
            else:
                record.client_id, record.auth_method = self._authenticate(
                    request.headers.get("authorization"), form
                )
                with self._lock:
                    body = self._grant(record.client_id, form)
        except _OAuthError as exc:
            record.error = exc.error
            if self.echo_request_in_errors:
                exc.description += f" (request: {form})"
            with self._lock:
                self.token_requests.append(record)
            return _error(exc)
        with self._lock:
            self.token_requests.append(record)
        return JSONResponse(body, headers={"Cache-Control": "no-store", "Pragma": "no-cache"})

    def _authenticate(self, authorization: str | None, form: dict[str, str]) -> tuple[str, str]:
        """The client id and how it authenticated (RFC 6749 section 2.3)."""
        basic = authorization is not None and authorization.lower().startswith("basic ")
        if basic and "client_secret" in form:
            raise _OAuthError("invalid_request", "more than one client authentication method")
        if basic:
            assert authorization is not None
            try:
                decoded = base64.b64decode(authorization[6:].strip()).decode()
                raw_id, raw_secret = decoded.split(":", 1)
            except ValueError:
                raise _OAuthError("invalid_client", "malformed basic credentials", 401) from None
            client_id, secret, method = unquote(raw_id), unquote(raw_secret), "client_secret_basic"
        elif "client_secret" in form:
            client_id, secret, method = (
                form.get("client_id", ""),
                form["client_secret"],
                ("client_secret_post"),
            )
        else:
            client_id, secret, method = form.get("client_id", ""), None, "none"
        if client_id not in self.clients:
            raise _OAuthError("invalid_client", "unknown client", 401)
        expected = self.clients[client_id]
        if expected is None:
            if method != "none":
                raise _OAuthError("invalid_client", "a public client has no secret", 401)
        elif secret is None or not secrets.compare_digest(secret, expected):
            raise _OAuthError("invalid_client", "client authentication failed", 401)
        return client_id, method

    def _grant(self, client_id: str, form: dict[str, str]) -> dict[str, Any]:
        grant_type = form.get("grant_type")
        if grant_type == "authorization_code":
            return self._code_grant(client_id, form)
        if grant_type == "client_credentials":
            if self.clients[client_id] is None:
                raise _OAuthError("unauthorized_client", "public clients cannot use this grant")
            return self._issue(client_id, None, form.get("scope", ""), refresh=False)
        if grant_type == "refresh_token":
            return self._refresh_grant(client_id, form)
        raise _OAuthError("unsupported_grant_type", "grant type not supported")

    def _code_grant(self, client_id: str, form: dict[str, str]) -> dict[str, Any]:
        grant = self._grants.get(form.get("code", ""))
        if grant is None or grant.client_id != client_id:
            raise _OAuthError("invalid_grant", "unknown authorization code")
        if grant.used:
            raise _OAuthError("invalid_grant", "authorization code already used")
        grant.used = True
        if time.time() - grant.issued_at > CODE_LIFETIME_SECONDS:
            raise _OAuthError("invalid_grant", "authorization code expired")
        if form.get("redirect_uri") != grant.redirect_uri:
            raise _OAuthError("invalid_grant", "redirect_uri does not match the authorization")
        _check_pkce(grant, form.get("code_verifier"))
        return self._issue(client_id, grant.user, grant.scope, refresh=True)

    def _refresh_grant(self, client_id: str, form: dict[str, str]) -> dict[str, Any]:
        presented = form.get("refresh_token", "")
        token = self._refresh_tokens.get(presented)
        if token is None or token.client_id != client_id:
            raise _OAuthError("invalid_grant", "unknown refresh token")
        if not self.rotate_refresh_tokens:
            body = self._issue(client_id, token.user, token.scope, refresh=False)
            return body
        del self._refresh_tokens[presented]
        return self._issue(client_id, token.user, token.scope, refresh=True)

    def _jwt_bearer_grant(self, form: dict[str, str]) -> tuple[str, dict[str, Any]]:
        """RFC 7523 section 2.1: the account and the token for a signed assertion."""
        try:
            header, claims = verify_jwt(form.get("assertion", ""), self._service_account_key)
        except JwtRefused as exc:
            raise _OAuthError("invalid_grant", str(exc)) from None
        email = str(claims.get("iss", ""))
        if header.get("kid") != self._service_accounts[email][0]:
            raise _OAuthError("invalid_grant", "the assertion names another key id")
        if claims.get("aud") not in (self.token_endpoint, GOOGLE_TOKEN_ENDPOINT):
            raise _OAuthError("invalid_grant", "the assertion is for another audience")
        now = time.time()
        iat, exp = claims.get("iat"), claims.get("exp")
        if not isinstance(iat, int) or not isinstance(exp, int) or iat > now + 60:
            raise _OAuthError("invalid_grant", "the assertion has no valid iat / exp")
        if exp - iat > ASSERTION_MAX_LIFETIME_SECONDS:
            raise _OAuthError("invalid_grant", "the assertion lives longer than an hour")
        target_audience = claims.get("target_audience")
        if target_audience:
            return email, {"id_token": self._sign_id_token(email, str(target_audience))}
        scope = claims.get("scope")
        if not isinstance(scope, str) or not scope.strip():
            raise _OAuthError("invalid_scope", "the assertion asks for no scope")
        return email, self._issue(email, email, scope, refresh=False)

    def _service_account_key(self, header: dict[str, Any]) -> rsa.RSAPublicKey | None:
        """The verifying key of the account the (unverified) claims name, from the header."""
        account = self._service_accounts.get(str(header.get("_iss", "")))
        return account[1] if account is not None else None

    def _sign_id_token(self, email: str, audience: str) -> str:
        if self._signing_key is None:
            self._signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "aud": audience,
            "sub": email,
            "email": email,
            "azp": email,
            "iat": now,
            "exp": now + self.expires_in,
        }
        return sign_jwt(self._signing_key, claims, key_id="server-key")

    def _issue(
        self, client_id: str, user: str | None, scope: str, *, refresh: bool
    ) -> dict[str, Any]:
        access_token = "at_" + secrets.token_urlsafe(24)
        expires_at = time.time() + self.expires_in
        self._access_tokens[access_token] = _Token(client_id, user, scope, expires_at)
        body: dict[str, Any] = {
            "access_token": access_token,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
        }
        if scope:
            body["scope"] = scope
        if refresh:
            refresh_token = "rt_" + secrets.token_urlsafe(24)
            self._refresh_tokens[refresh_token] = _Token(client_id, user, scope, float("inf"))
            body["refresh_token"] = refresh_token
        return body

    # -- resource and metadata ---------------------------------------------------------------

    async def _me_endpoint(self, request: Request) -> Response:
        authorization = request.headers.get("authorization", "")
        info = None
        if authorization.lower().startswith("bearer "):
            token = authorization[7:].strip()
            info = self.token_info(token)
            claims = None if info is not None else self.id_token_claims(token)
            if claims is not None and claims.get("aud") == self.resource_url:
                info = {"user": claims["sub"], "client_id": claims["azp"], "scope": ""}
        if info is None:
            challenge = (
                f'Bearer error="invalid_token", resource_metadata='
                f'"{self.base_url}/.well-known/oauth-protected-resource/api"'
            )
            return JSONResponse(
                {"error": "invalid_token"}, 401, headers={"WWW-Authenticate": challenge}
            )
        return JSONResponse(info)

    def _server_metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.advertised_issuer or self.issuer,
            "authorization_endpoint": self.authorization_endpoint,
            "token_endpoint": self.token_endpoint,
            "scopes_supported": list(self.scopes),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "client_credentials", "refresh_token"],
            "token_endpoint_auth_methods_supported": [
                "client_secret_basic",
                "client_secret_post",
                "none",
            ],
            "code_challenge_methods_supported": ["S256", "plain"],
        }

    async def _as_metadata(self, request: Request) -> Response:
        return JSONResponse(self._server_metadata())

    async def _oidc_metadata(self, request: Request) -> Response:
        metadata = self._server_metadata()
        metadata.update(
            userinfo_endpoint=f"{self.resource_url}/me",
            subject_types_supported=["public"],
            id_token_signing_alg_values_supported=["RS256"],
        )
        return JSONResponse(metadata)

    async def _resource_metadata(self, request: Request) -> Response:
        resource = self.base_url + request.url.path.removeprefix(
            "/.well-known/oauth-protected-resource"
        )
        return JSONResponse(
            {
                "resource": resource,
                "authorization_servers": [self.issuer],
                "scopes_supported": list(self.scopes),
                "bearer_methods_supported": ["header"],
            }
        )


def _check_pkce(grant: _Grant, verifier: str | None) -> None:
    if grant.code_challenge is None:
        if verifier is not None:
            raise _OAuthError("invalid_grant", "code_verifier sent but no challenge was given")
        return
    if not verifier:
        raise _OAuthError("invalid_grant", "code_verifier is required (PKCE)")
    if grant.code_challenge_method == "S256":
        digest = hashlib.sha256(verifier.encode("ascii")).digest()
        computed = base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
    else:
        computed = verifier
    if not secrets.compare_digest(computed, grant.code_challenge):
        raise _OAuthError("invalid_grant", "code_verifier does not match the challenge")


def _with_query(uri: str, params: dict[str, str | None]) -> str:
    query = urlencode({key: value for key, value in params.items() if value is not None})
    return f"{uri}{'&' if '?' in uri else '?'}{query}"


def _error(exc: _OAuthError) -> Response:
    headers = {"Cache-Control": "no-store"}
    if exc.status == 401:
        headers["WWW-Authenticate"] = 'Basic realm="token"'
    return JSONResponse(
        {"error": exc.error, "error_description": exc.description}, exc.status, headers=headers
    )


@contextlib.contextmanager
def running_oauth_server(
    clients: Mapping[str, str | None], **options: Any
) -> Iterator[OAuthServer]:
    """Start an :class:`OAuthServer` on a free loopback port in a thread; stop it after.

    Call it outside a running event loop (a sync fixture): it waits for the server to start.

    Args:
        clients: Client id to secret (None for a public client).
        **options: :class:`OAuthServer`'s keyword arguments.
    """
    oauth = OAuthServer(clients, **options)
    config = uvicorn.Config(
        oauth.app,
        host="127.0.0.1",
        port=0,
        http="h11",
        ws="none",
        lifespan="off",
        log_config=None,
        log_level="warning",
        access_log=False,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="oauth-server", daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test OAuth2 server did not start")
            time.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        oauth.base_url = f"http://127.0.0.1:{port}"
        yield oauth
    finally:
        server.should_exit = True
        thread.join(timeout=10)
