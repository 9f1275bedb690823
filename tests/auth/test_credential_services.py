"""The credential services through a real Runner: scoping, persistence, no client secret."""

from __future__ import annotations

import pytest
from fastapi.openapi.models import OAuth2, OAuthFlowClientCredentials, OAuthFlows

from adk_runtime.agents import LlmAgent
from adk_runtime.auth import AuthConfig, AuthCredential
from adk_runtime.auth.credential_service import (
    InMemoryCredentialService,
    SessionStateCredentialService,
)
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.sessions import BaseSessionService, InMemorySessionService, Session
from adk_runtime.testing import ScriptedModel
from tests.auth.agents import APP, ask, whoami_answers, whoami_runner
from tests.auth.helpers import CLIENT_SECRET, client_credentials_scheme, oauth2_credential
from tests.auth.oauth_server import OAuthServer


def client_credentials_config(server: OAuthServer) -> AuthConfig:
    return AuthConfig(
        auth_scheme=client_credentials_scheme(server), raw_auth_credential=oauth2_credential()
    )


async def test_session_state_service_stores_the_credential_in_the_session_store(
    oauth_server: OAuthServer, session_service: BaseSessionService
) -> None:
    config = client_credentials_config(oauth_server)
    runner = whoami_runner(
        oauth_server, config, session_service, credential_service=SessionStateCredentialService()
    )
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")

    first = await ask(runner, "u1", "s1", "who am I?")
    second = await ask(runner, "u1", "s1", "and now?")

    assert (
        whoami_answers(first)
        == whoami_answers(second)
        == [{"status": 200, "user": None, "client_id": "agent-client", "scope": "read write"}]
    )
    # The second turn read the committed credential back: no second token request.
    assert oauth_server.token_request_count("client_credentials") == 1
    session = await session_service.get_session(app_name=APP, user_id="u1", session_id="s1")
    assert session is not None
    stored = session.state[config.credential_key or ""]
    assert isinstance(stored, dict)
    assert stored["oauth2"]["accessToken"]
    assert "clientSecret" not in stored["oauth2"]
    assert AuthCredential.model_validate(stored).oauth2 is not None
    assert CLIENT_SECRET not in session.model_dump_json()
    # Another session of the same user has no credential: it gets its own token.
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s2")
    await ask(runner, "u1", "s2", "who am I?")
    assert oauth_server.token_request_count("client_credentials") == 2


async def test_session_state_service_puts_the_configured_secret_back_on_load(
    oauth_server: OAuthServer,
) -> None:
    config = client_credentials_config(oauth_server)
    runner = whoami_runner(
        oauth_server,
        config,
        InMemorySessionService(),
        credential_service=SessionStateCredentialService(),
    )
    await runner.session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    await ask(runner, "u1", "s1", "hi")
    session = await runner.session_service.get_session(app_name=APP, user_id="u1", session_id="s1")
    assert session is not None

    context = context_of(session, runner.session_service)
    loaded = await SessionStateCredentialService().load_credential(config, context)

    assert loaded is not None
    assert loaded.oauth2 is not None
    assert loaded.oauth2.client_secret == CLIENT_SECRET
    assert loaded.oauth2.access_token


@pytest.mark.usefixtures("blockbuster")
async def test_in_memory_service_is_scoped_by_app_and_user(oauth_server: OAuthServer) -> None:
    config = client_credentials_config(oauth_server)
    credentials = InMemoryCredentialService()
    sessions = InMemorySessionService()
    runner = whoami_runner(oauth_server, config, sessions, credential_service=credentials)
    other_app = whoami_runner(
        oauth_server, config, sessions, credential_service=credentials, app_name="other-app"
    )
    for app, user, session_id in [
        (APP, "u1", "s1"),
        (APP, "u1", "s2"),
        (APP, "u2", "s1"),
        ("other-app", "u1", "s1"),
    ]:
        await sessions.create_session(app_name=app, user_id=user, session_id=session_id)

    await ask(runner, "u1", "s1", "hi")
    await ask(runner, "u1", "s2", "hi")  # same app and user: the saved credential
    assert oauth_server.token_request_count() == 1
    await ask(runner, "u2", "s1", "hi")  # another user
    assert oauth_server.token_request_count() == 2
    await ask(other_app, "u1", "s1", "hi")  # same user, another app
    assert oauth_server.token_request_count() == 3
    await ask(runner, "u2", "s1", "again")
    assert oauth_server.token_request_count() == 3


async def test_in_memory_service_copies_in_and_out() -> None:
    service = InMemoryCredentialService()
    config = AuthConfig(
        auth_scheme=client_credentials_scheme_stub(),
        raw_auth_credential=oauth2_credential(),
        exchanged_auth_credential=oauth2_credential(access_token="at_1"),
    )
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name=APP, user_id="u1")
    context = context_of(session, sessions)

    await service.save_credential(config, context)
    assert config.exchanged_auth_credential is not None
    assert config.exchanged_auth_credential.oauth2 is not None
    config.exchanged_auth_credential.oauth2.access_token = "changed after save"
    loaded = await service.load_credential(config, context)

    assert loaded is not None
    assert loaded.oauth2 is not None
    assert loaded.oauth2.access_token == "at_1"
    loaded.oauth2.access_token = "changed after load"
    again = await service.load_credential(config, context)
    assert again is not None
    assert again.oauth2 is not None
    assert again.oauth2.access_token == "at_1"


def client_credentials_scheme_stub() -> OAuth2:
    return OAuth2(flows=OAuthFlows(clientCredentials=OAuthFlowClientCredentials(tokenUrl="x")))


def context_of(session: Session, service: BaseSessionService) -> CallbackContext:
    """A real callback context on ``session`` (what a tool's callbacks receive)."""
    agent = LlmAgent(name="assistant", model=ScriptedModel(replies=[]))
    invocation = InvocationContext(
        invocation_id="e-test", session=session, agent=agent, session_service=service
    )
    return CallbackContext(invocation)
