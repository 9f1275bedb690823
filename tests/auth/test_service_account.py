"""Service accounts: a key (or ADC) becomes a bearer token at the loopback token endpoint.

google-auth signs the RS256 assertion with a key the test generates; the server checks it
against the registered public key (RFC 7523) and answers an access token or an ID token.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from fastapi.openapi.models import HTTPBearer
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.auth import AuthConfig, AuthCredential, AuthCredentialTypes
from adk_runtime.auth.credential_manager import (
    CredentialManager,
    ServiceAccountCredentialExchanger,
)
from adk_runtime.auth.credential_service import InMemoryCredentialService
from adk_runtime.auth.exchanger import CredentialExchangeError
from adk_runtime.auth.exchanger.service_account_credential_exchanger import (
    DEFAULT_SCOPES,
    AuthCredentialMissingError,
    reset_token_cache,
)
from adk_runtime.runners import Runner
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.authenticated_function_tool import AuthenticatedFunctionTool
from tests.auth.agents import APP, ask, tool_context
from tests.auth.helpers import (
    SERVICE_ACCOUNT_EMAIL,
    pem,
    rsa_key,
    service_account_credential,
    service_account_key,
)
from tests.auth.oauth_server import JWT_BEARER, OAuthServer, sign_jwt

pytestmark = pytest.mark.usefixtures("blockbuster")

SCOPES = ["read", "write"]


@pytest.fixture(autouse=True)
def _fresh_token_cache() -> Iterator[None]:
    reset_token_cache()
    yield
    reset_token_cache()


@pytest.fixture
def key() -> rsa.RSAPrivateKey:
    return rsa_key()


@pytest.fixture
def key_file(oauth_server: OAuthServer, key: rsa.RSAPrivateKey) -> dict[str, str]:
    """A registered service account's JSON key, its token_uri the loopback server's."""
    return service_account_key(oauth_server, key)


@pytest.fixture
def adc(key_file: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Application Default Credentials: GOOGLE_APPLICATION_CREDENTIALS names the key file."""
    path = tmp_path / "key.json"
    path.write_text(json.dumps(key_file))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))


def bearer_token(credential: AuthCredential) -> str:
    assert credential.auth_type == AuthCredentialTypes.HTTP
    assert credential.http is not None
    assert credential.http.scheme == "bearer"
    token = credential.http.credentials.token
    assert token
    return token


async def exchange(credential: AuthCredential) -> AuthCredential:
    result = await ServiceAccountCredentialExchanger().exchange(credential, HTTPBearer())
    assert result.was_exchanged
    return result.credential


def secret_fragments(key: rsa.RSAPrivateKey) -> list[str]:
    """The lines of the key's PEM body: none may appear in a message or a log line."""
    return [line for line in pem(key).splitlines() if "PRIVATE KEY" not in line]


async def test_a_key_gets_an_access_token_for_its_scopes(
    oauth_server: OAuthServer, key_file: dict[str, str]
) -> None:
    credential = await exchange(service_account_credential(key_file, scopes=SCOPES))

    token = bearer_token(credential)
    assert oauth_server.token_info(token) == {
        "user": SERVICE_ACCOUNT_EMAIL,
        "client_id": SERVICE_ACCOUNT_EMAIL,
        "scope": "read write",
    }
    [request] = oauth_server.token_requests
    assert (request.grant_type, request.auth_method, request.error) == (
        JWT_BEARER,
        "jwt-bearer",
        None,
    )
    assert credential.http is not None
    assert credential.http.additional_headers is None


async def test_a_key_gets_an_id_token_for_an_audience(
    oauth_server: OAuthServer, key_file: dict[str, str]
) -> None:
    audience = "https://my-service.example"
    credential = await exchange(
        service_account_credential(key_file, use_id_token=True, audience=audience)
    )

    token = bearer_token(credential)
    claims = oauth_server.id_token_claims(token)
    assert claims is not None
    assert (claims["aud"], claims["sub"]) == (audience, SERVICE_ACCOUNT_EMAIL)
    assert oauth_server.token_info(token) is None  # an ID token, not an access token


async def test_a_token_is_reused_until_shortly_before_it_expires(
    oauth_server: OAuthServer, key_file: dict[str, str]
) -> None:
    config = service_account_credential(key_file, scopes=SCOPES)

    concurrent = await asyncio.gather(*(exchange(config) for _ in range(4)))  # cold cache
    first = concurrent[0]
    assert first.http is not None
    first.http.credentials.token = "changed by a caller"  # a copy: the cache keeps its own
    later = await exchange(config)
    assert later.http is not None
    token = bearer_token(later)
    later.http.credentials.token = "changed again"
    last = await exchange(config)

    assert oauth_server.token_request_count(JWT_BEARER) == 1
    tokens = {bearer_token(credential) for credential in (*concurrent[1:], last)} | {token}
    assert len(tokens) == 1
    assert oauth_server.token_info(tokens.pop()) is not None


async def test_a_token_about_to_expire_is_replaced(
    oauth_server: OAuthServer, key_file: dict[str, str]
) -> None:
    oauth_server.expires_in = 60  # inside the margin: never reused
    config = service_account_credential(key_file, scopes=SCOPES)

    first = bearer_token(await exchange(config))
    oauth_server.expires_in = 3600
    second = bearer_token(await exchange(config))
    third = bearer_token(await exchange(config))

    assert oauth_server.token_request_count(JWT_BEARER, ok=True) == 2
    assert first != second == third


async def test_the_cache_tells_scopes_and_audiences_apart(
    oauth_server: OAuthServer, key_file: dict[str, str]
) -> None:
    read = await exchange(service_account_credential(key_file, scopes=["read"]))
    write = await exchange(service_account_credential(key_file, scopes=["write"]))
    audiences = [
        await exchange(service_account_credential(key_file, use_id_token=True, audience=a))
        for a in ("https://a.example", "https://b.example")
    ]

    assert oauth_server.token_request_count(JWT_BEARER) == 4
    tokens = {bearer_token(c) for c in (read, write, *audiences)}
    assert len(tokens) == 4


@pytest.mark.parametrize("echo", [False, True], ids=["plain", "echoing-server"])
async def test_a_wrong_key_is_refused_without_key_material_in_messages(
    oauth_server: OAuthServer,
    key_file: dict[str, str],
    caplog: pytest.LogCaptureFixture,
    echo: bool,
) -> None:
    caplog.set_level(logging.DEBUG)
    oauth_server.echo_request_in_errors = echo
    await exchange(service_account_credential(key_file, scopes=SCOPES))  # the real key: cached
    other = rsa_key()  # not the key the server knows for this account and key id
    forged = service_account_key(
        oauth_server, other, key_id=key_file["private_key_id"], register=False
    )

    with pytest.raises(CredentialExchangeError) as raised:
        await exchange(service_account_credential(forged, scopes=SCOPES))

    message = str(raised.value)
    assert "invalid_grant" in message
    assert SERVICE_ACCOUNT_EMAIL in message
    request = oauth_server.token_requests[-1]  # the forged key never gets the cached token
    assert request.error == "invalid_grant"
    logged = "\n".join(record.getMessage() for record in caplog.records)
    for text in (message, logged):
        for fragment in secret_fragments(other):
            assert fragment not in text
        for part in request.form["assertion"].split("."):
            assert part[:24] not in text
    if echo:
        assert "<hidden>" in message  # the echoed assertion was cut out
    assert raised.value.__cause__ is None
    assert raised.value.__suppress_context__


async def test_an_unreachable_token_endpoint_is_a_typed_error(
    oauth_server: OAuthServer, key_file: dict[str, str]
) -> None:
    key_file["token_uri"] = "http://127.0.0.1:9/token"  # discard port: connection refused

    with pytest.raises(CredentialExchangeError, match="TransportError"):
        await exchange(service_account_credential(key_file, scopes=SCOPES))


async def test_a_credential_without_its_service_account_section_is_a_typed_error(
    oauth_server: OAuthServer,
) -> None:
    bare = AuthCredential(auth_type=AuthCredentialTypes.SERVICE_ACCOUNT)

    with pytest.raises(AuthCredentialMissingError, match="no service_account section"):
        await exchange(bare)

    assert oauth_server.token_requests == []


async def test_a_key_without_scopes_is_a_typed_error(
    oauth_server: OAuthServer, key_file: dict[str, str]
) -> None:
    with pytest.raises(AuthCredentialMissingError, match="needs scopes"):
        await exchange(service_account_credential(key_file))

    assert oauth_server.token_requests == []


@pytest.mark.usefixtures("adc")
async def test_default_credentials_get_the_cloud_platform_scope_and_quota_project(
    oauth_server: OAuthServer,
) -> None:
    credential = await exchange(service_account_credential())

    info = oauth_server.token_info(bearer_token(credential))
    assert info is not None
    assert (info["user"], info["scope"]) == (SERVICE_ACCOUNT_EMAIL, " ".join(DEFAULT_SCOPES))
    assert credential.http is not None
    assert credential.http.additional_headers == {"x-goog-user-project": "test-project"}


@pytest.mark.usefixtures("adc")
async def test_default_credentials_get_an_id_token(oauth_server: OAuthServer) -> None:
    credential = await exchange(
        service_account_credential(use_id_token=True, audience=oauth_server.resource_url)
    )

    claims = oauth_server.id_token_claims(bearer_token(credential))
    assert claims is not None
    assert (claims["aud"], claims["sub"]) == (oauth_server.resource_url, SERVICE_ACCOUNT_EMAIL)


async def test_missing_default_credentials_are_a_typed_error(
    oauth_server: OAuthServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "absent.json"))

    with pytest.raises(CredentialExchangeError, match="DefaultCredentialsError"):
        await exchange(service_account_credential(scopes=SCOPES))


# -- through CredentialManager, an AuthenticatedFunctionTool and a Runner ------------------


def service_account_config(credential: AuthCredential) -> AuthConfig:
    return AuthConfig(auth_scheme=HTTPBearer(), raw_auth_credential=credential)


def me_runner(server: OAuthServer, config: AuthConfig) -> tuple[Runner, InMemoryCredentialService]:
    """A runner whose model calls ``me`` on every user message, then says "done"."""

    async def me(credential: AuthCredential) -> dict[str, Any]:
        """Say who the API sees calling."""
        client = await asyncio.to_thread(httpx.AsyncClient)
        async with client:
            response = await client.get(
                f"{server.resource_url}/me",
                headers={"Authorization": f"Bearer {bearer_token(credential)}"},
            )
        return {"status": response.status_code, **response.json()}

    def reply(request: Any) -> str | types.Part:
        last = request.contents[-1] if request.contents else None
        answered = last is not None and any(p.function_response for p in last.parts or [])
        return "done" if answered else function_call("me")

    agent = LlmAgent(
        name="assistant",
        model=ScriptedModel(handler=reply),
        tools=[AuthenticatedFunctionTool(func=me, auth_config=config)],
    )
    credentials = InMemoryCredentialService()
    runner = Runner(
        app_name=APP,
        agent=agent,
        session_service=InMemorySessionService(),
        credential_service=credentials,
    )
    return runner, credentials


@pytest.mark.parametrize("kind", ["access-token", "id-token"])
async def test_a_tool_calls_the_api_as_the_service_account_through_a_runner(
    oauth_server: OAuthServer, key_file: dict[str, str], kind: str
) -> None:
    options: dict[str, Any] = (
        {"scopes": SCOPES}
        if kind == "access-token"
        else {"use_id_token": True, "audience": oauth_server.resource_url}
    )
    runner, credentials = me_runner(
        oauth_server, service_account_config(service_account_credential(key_file, **options))
    )
    session = await runner.session_service.create_session(app_name=APP, user_id="u1")

    answers = []
    for text in ("who am I?", "and now?"):
        events = await ask(runner, "u1", session.id, text)
        calls = [call.name for event in events for call in event.get_function_calls()]
        assert calls == ["me"]  # no adk_request_credential: nobody is asked
        answers += [
            part.function_response.response
            for event in events
            for part in (event.content.parts or [] if event.content else [])
            if part.function_response
        ]

    expected = {"status": 200, "user": SERVICE_ACCOUNT_EMAIL, "client_id": SERVICE_ACCOUNT_EMAIL}
    assert [{k: a[k] for k in expected} for a in answers] == [expected, expected]
    assert oauth_server.token_request_count(JWT_BEARER) == 1  # the second call used the cache
    assert credentials._credentials == {}  # the application's identity is not saved per user


async def test_a_refused_key_fails_the_credential_manager_instead_of_asking_the_user(
    oauth_server: OAuthServer,
) -> None:
    unknown = service_account_key(oauth_server, rsa_key(), register=False)
    manager = CredentialManager(
        service_account_config(service_account_credential(unknown, scopes=SCOPES))
    )
    context = await tool_context()

    with pytest.raises(CredentialExchangeError, match="invalid_grant"):
        await manager.get_auth_credential(context)

    assert not context.actions.requested_auth_configs


async def test_the_credential_manager_ignores_saved_credentials_and_user_answers(
    oauth_server: OAuthServer, key_file: dict[str, str]
) -> None:
    config = service_account_config(service_account_credential(key_file, scopes=SCOPES))
    context = await tool_context()
    forged = AuthCredential.model_validate(
        {"auth_type": "http", "http": {"scheme": "bearer", "credentials": {"token": "forged"}}}
    )
    context.state["temp:" + (config.credential_key or "")] = forged.model_dump(mode="json")

    credential = await CredentialManager(config).get_auth_credential(context)

    assert credential is not None
    assert oauth_server.token_info(bearer_token(credential)) is not None


# -- the loopback server's JWT bearer grant refuses what Google's refuses ------------------


@pytest.mark.parametrize(
    ("change", "error"),
    [
        ({}, None),
        ({"aud": "https://elsewhere.example/token"}, "invalid_grant"),
        ({"iss": "stranger@example.com"}, "invalid_grant"),
        ({"exp": -10}, "invalid_grant"),
        ({"iat": -7200}, "invalid_grant"),  # lives longer than an hour
        ({"scope": ""}, "invalid_scope"),
        ({"kid": "another-key-id"}, "invalid_grant"),
    ],
    ids=["valid", "audience", "issuer", "expired", "too-long", "no-scope", "key-id"],
)
async def test_the_server_checks_the_assertion(
    oauth_server: OAuthServer,
    key: rsa.RSAPrivateKey,
    key_file: dict[str, str],
    change: dict[str, Any],
    error: str | None,
) -> None:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": SERVICE_ACCOUNT_EMAIL,
        "aud": oauth_server.token_endpoint,
        "iat": now,
        "exp": now + 600,
        "scope": "read",
    }
    key_id = change.pop("kid", key_file["private_key_id"])
    claims.update(
        {name: now + value if name in ("iat", "exp") else value for name, value in change.items()}
    )
    assertion = sign_jwt(key, claims, key_id=key_id)
    client = await asyncio.to_thread(httpx.AsyncClient)
    async with client:
        response = await client.post(
            oauth_server.token_endpoint, data={"grant_type": JWT_BEARER, "assertion": assertion}
        )

    body = response.json()
    assert body.get("error") == error
    if error is None:
        assert oauth_server.token_info(body["access_token"]) is not None
