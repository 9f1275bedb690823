"""CredentialManager and the authenticated tools end to end: a Runner, the loopback server.

The user's sign-in goes through the real flow: the tool asks, the agent yields an
``adk_request_credential`` call carrying the authorization URI, the "browser" signs in at the
server, the client answers with the redirect URI, and the tool runs again.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from google.genai import types

from adk_runtime.auth import AuthConfig, AuthToolArguments
from adk_runtime.auth.credential_service import InMemoryCredentialService
from adk_runtime.auth.exchanger import CredentialExchangeError
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.tools.base_authenticated_tool import PENDING_AUTHORIZATION
from tests.auth.agents import APP, ask, tool_context, whoami_answers, whoami_runner
from tests.auth.helpers import (
    CLIENT_SECRET,
    REDIRECT_URI,
    client_credentials_scheme,
    code_scheme,
    oauth2_credential,
)
from tests.auth.oauth_server import OAuthServer

pytestmark = pytest.mark.usefixtures("blockbuster")

REQUEST = "adk_request_credential"


def code_config(server: OAuthServer, scheme: Any = None) -> AuthConfig:
    return AuthConfig(
        auth_scheme=scheme or code_scheme(server),
        raw_auth_credential=oauth2_credential(redirect_uri=REDIRECT_URI),
    )


def credential_requests(events: list[Event]) -> list[types.FunctionCall]:
    return [call for event in events for call in event.get_function_calls() if call.name == REQUEST]


def answer(call: types.FunctionCall, response_uri: str) -> types.Content:
    arguments = AuthToolArguments.model_validate(call.args)
    config = arguments.auth_config
    assert config.exchanged_auth_credential is not None
    assert config.exchanged_auth_credential.oauth2 is not None
    config.exchanged_auth_credential.oauth2.auth_response_uri = response_uri
    response = types.FunctionResponse(
        id=call.id, name=REQUEST, response=config.model_dump(mode="json", by_alias=True)
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def sign_in_through_the_flow(
    runner: Runner, server: OAuthServer, session_id: str, *, user: str = "alice"
) -> list[Event]:
    asked = await ask(runner, user, session_id, "who am I?")
    assert whoami_answers(asked) == [{"result": PENDING_AUTHORIZATION}]
    [call] = credential_requests(asked)
    auth_uri = AuthToolArguments.model_validate(call.args).auth_config.exchanged_auth_credential
    assert auth_uri is not None
    assert auth_uri.oauth2 is not None
    assert auth_uri.oauth2.auth_uri
    assert CLIENT_SECRET not in str(call.args)
    response_uri = await server.sign_in_async(auth_uri.oauth2.auth_uri, user=user)
    return await ask(runner, user, session_id, answer(call, response_uri))


async def test_authorization_code_flow_signs_in_then_reuses_the_saved_credential(
    oauth_server: OAuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    sessions = InMemorySessionService()
    runner = whoami_runner(
        oauth_server,
        code_config(oauth_server),
        sessions,
        credential_service=InMemoryCredentialService(),
    )
    await sessions.create_session(app_name=APP, user_id="alice", session_id="s1")

    resumed = await sign_in_through_the_flow(runner, oauth_server, "s1")
    again = await ask(runner, "alice", "s1", "and again?")

    expected = {"status": 200, "user": "alice", "client_id": "agent-client", "scope": "read"}
    assert whoami_answers(resumed) == [expected]
    assert whoami_answers(again) == [expected]
    assert credential_requests(again) == []
    assert oauth_server.token_request_count("authorization_code", ok=True) == 1
    assert oauth_server.token_request_count() == 1
    leaked = [CLIENT_SECRET, *_issued_secrets(oauth_server)]
    assert any(record.name.startswith("adk_runtime.auth") for record in caplog.records)
    # Ours and Authlib's log lines (httpcore's DEBUG lines show the tool's own request headers).
    for record in caplog.records:
        if not record.name.startswith(("adk_runtime", "authlib")):
            continue
        text = record.getMessage()
        assert not any(secret in text for secret in leaked), record.name


async def test_an_expired_saved_token_is_refreshed_and_saved(oauth_server: OAuthServer) -> None:
    oauth_server.expires_in = 5  # under the refresh margin: every later use refreshes
    sessions = InMemorySessionService()
    credentials = InMemoryCredentialService()
    config = code_config(oauth_server)
    runner = whoami_runner(oauth_server, config, sessions, credential_service=credentials)
    await sessions.create_session(app_name=APP, user_id="alice", session_id="s1")
    await sign_in_through_the_flow(runner, oauth_server, "s1")
    refreshes = oauth_server.token_request_count("refresh_token", ok=True)

    later = await ask(runner, "alice", "s1", "still me?")

    assert whoami_answers(later)[0]["user"] == "alice"
    assert oauth_server.token_request_count("refresh_token", ok=True) == refreshes + 1
    # The refreshed credential was saved: its refresh token is the rotated, live one.
    saved = credentials._credentials[(APP, "alice")][config.credential_key or ""]
    assert saved is not None
    assert saved.oauth2 is not None
    assert saved.oauth2.refresh_token
    assert oauth_server.is_refresh_token_active(saved.oauth2.refresh_token)


async def test_a_revoked_refresh_token_asks_the_user_again(oauth_server: OAuthServer) -> None:
    oauth_server.expires_in = 5
    sessions = InMemorySessionService()
    credentials = InMemoryCredentialService()
    config = code_config(oauth_server)
    runner = whoami_runner(oauth_server, config, sessions, credential_service=credentials)
    await sessions.create_session(app_name=APP, user_id="alice", session_id="s1")
    await sign_in_through_the_flow(runner, oauth_server, "s1")
    saved = credentials._credentials[(APP, "alice")][config.credential_key or ""]
    assert saved is not None
    assert saved.oauth2 is not None
    saved.oauth2.refresh_token = "rt_revoked-by-the-provider"

    events = await ask(runner, "alice", "s1", "still me?")

    assert whoami_answers(events) == [{"result": PENDING_AUTHORIZATION}]
    assert len(credential_requests(events)) == 1


async def test_client_credentials_need_no_user(oauth_server: OAuthServer) -> None:
    sessions = InMemorySessionService()
    config = AuthConfig(
        auth_scheme=client_credentials_scheme(oauth_server), raw_auth_credential=oauth2_credential()
    )
    runner = whoami_runner(oauth_server, config, sessions)  # no credential service
    await sessions.create_session(app_name=APP, user_id="u1", session_id="s1")

    events = await ask(runner, "u1", "s1", "hi")

    assert whoami_answers(events)[0]["client_id"] == "agent-client"
    assert credential_requests(events) == []


async def test_a_refused_client_credentials_exchange_fails_the_call_with_a_typed_error(
    oauth_server: OAuthServer,
) -> None:
    from adk_runtime.auth.credential_manager import CredentialManager

    config = AuthConfig(
        auth_scheme=client_credentials_scheme(oauth_server),
        raw_auth_credential=oauth2_credential(client_secret="wrong-secret-123"),
    )
    manager = CredentialManager(config)
    context = await tool_context()

    with pytest.raises(CredentialExchangeError, match="invalid_client") as caught:
        await manager.get_auth_credential(context)
    assert "wrong-secret-123" not in str(caught.value)


async def test_endpoints_are_discovered_from_the_issuer(oauth_server: OAuthServer) -> None:
    from fastapi.openapi.models import OAuthFlowAuthorizationCode, OAuthFlows

    from adk_runtime.auth.auth_schemes import ExtendedOAuth2

    scheme = ExtendedOAuth2(
        issuer_url=oauth_server.issuer,
        flows=OAuthFlows(
            authorizationCode=OAuthFlowAuthorizationCode(
                authorizationUrl="", tokenUrl="", scopes={"read": "read"}
            )
        ),
    )
    sessions = InMemorySessionService()
    runner = whoami_runner(oauth_server, code_config(oauth_server, scheme), sessions)
    await sessions.create_session(app_name=APP, user_id="alice", session_id="s1")

    resumed = await sign_in_through_the_flow(runner, oauth_server, "s1")

    assert whoami_answers(resumed)[0]["user"] == "alice"
    assert scheme.flows.authorizationCode is not None
    assert scheme.flows.authorizationCode.tokenUrl == oauth_server.token_endpoint


async def test_an_api_key_is_returned_as_configured() -> None:
    from fastapi.openapi.models import APIKey

    from adk_runtime.auth import AuthCredential, AuthCredentialTypes
    from adk_runtime.auth.credential_manager import CredentialManager

    key = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="k-123")
    config = AuthConfig(
        auth_scheme=APIKey.model_validate({"in": "header", "name": "X-Key"}),
        raw_auth_credential=key,
    )

    credential = await CredentialManager(config).get_auth_credential(await tool_context())

    assert credential == key
    assert credential is not key


async def test_an_oauth2_scheme_without_client_is_a_configuration_error(
    oauth_server: OAuthServer,
) -> None:
    from adk_runtime.auth.credential_manager import AuthConfigurationError, CredentialManager

    manager = CredentialManager(AuthConfig(auth_scheme=code_scheme(oauth_server)))

    with pytest.raises(AuthConfigurationError, match="raw_auth_credential"):
        await manager.get_auth_credential(await tool_context())


def _issued_secrets(server: OAuthServer) -> list[str]:
    issued: list[str] = []
    for request in server.token_requests:
        issued += [request.form[k] for k in ("code", "refresh_token") if k in request.form]
    issued += list(server._access_tokens) + list(server._refresh_tokens)
    return issued
