"""An MCP server that needs the user's credential: toolset authentication, end to end.

A real MCP server (streamable HTTP on loopback) reports the credential headers each request
carried; OAuth2 tokens come from the real authorization server of ``tests/auth``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.openapi.models import (
    APIKey,
    APIKeyIn,
    OAuth2,
    OAuthFlowAuthorizationCode,
    OAuthFlows,
)
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.agents._auth import TOOLSET_AUTH_CREDENTIAL_ID_PREFIX
from adk_runtime.auth import AuthCredential, AuthCredentialTypes, OAuth2Auth
from adk_runtime.auth.credential_service import InMemoryCredentialService
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows.functions import REQUEST_EUC_FUNCTION_CALL_NAME
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.mcp_tool import McpToolset, StreamableHTTPConnectionParams
from tests.auth.oauth_server import OAuthServer, running_oauth_server
from tests.llm.helpers import APP, USER, send, start, texts
from tests.tools.test_mcp import _serve, first_text

REDIRECT = "http://127.0.0.1:9/callback"


@pytest.fixture(scope="module")
def mcp_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log: Path = tmp_path_factory.mktemp("mcp-auth") / "server.log"
    for port in _serve("http", log):
        yield f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def oauth() -> Iterator[OAuthServer]:
    with running_oauth_server(clients={"mcp-client": "mcp-secret-5"}) as server:
        yield server


def key_toolset(url: str) -> McpToolset:
    return McpToolset(
        connection_params=StreamableHTTPConnectionParams(url=url, timeout=30),
        tool_filter=["credentials"],
        auth_scheme=APIKey(**{"in": APIKeyIn.header}, name="X-Api-Key"),  # type: ignore[arg-type]
        auth_credential=AuthCredential(auth_type=AuthCredentialTypes.API_KEY),
    )


def oauth_toolset(url: str, server: OAuthServer) -> McpToolset:
    scheme = OAuth2(
        flows=OAuthFlows(
            authorizationCode=OAuthFlowAuthorizationCode(
                authorizationUrl=server.authorization_endpoint,
                tokenUrl=server.token_endpoint,
                scopes={"read": "read"},
            )
        )
    )
    client = OAuth2Auth(client_id="mcp-client", client_secret="mcp-secret-5", redirect_uri=REDIRECT)
    return McpToolset(
        connection_params=StreamableHTTPConnectionParams(url=url, timeout=30),
        tool_filter=["credentials"],
        auth_scheme=scheme,
        auth_credential=AuthCredential(auth_type=AuthCredentialTypes.OAUTH2, oauth2=client),
    )


def request_of(events: list[Event]) -> types.FunctionCall:
    (call,) = [
        c
        for e in events
        for c in e.get_function_calls()
        if c.name == REQUEST_EUC_FUNCTION_CALL_NAME
    ]
    return call


def answer(call: types.FunctionCall, exchanged: dict[str, Any]) -> types.Content:
    config = dict((call.args or {})["authConfig"])
    config["exchangedAuthCredential"] = exchanged
    response = types.FunctionResponse(id=call.id, name=call.name, response=config)
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def carried(events: list[Event]) -> dict[str, Any]:
    (response,) = [r for e in events for r in e.get_function_responses() if r.name == "credentials"]
    return json.loads(first_text(response.response or {}))  # type: ignore[no-any-return]


async def test_api_key_is_asked_for_before_the_model_call_then_sent_to_the_server(
    session_service: BaseSessionService, mcp_url: str
) -> None:
    toolset = key_toolset(mcp_url)
    model = ScriptedModel(replies=[function_call("credentials", {}, id="k1"), "done"])
    runner = await start(LlmAgent(name="a", model=model, tools=[toolset]), session_service)
    try:
        paused = await send(runner, "what do you send?")
        asked = request_of(paused)
        assert (asked.args or {})[
            "functionCallId"
        ] == TOOLSET_AUTH_CREDENTIAL_ID_PREFIX + "McpToolset"
        assert model.requests == []  # the model is not called before the toolset has its key
        resumed = await send(runner, answer(asked, {"authType": "apiKey", "apiKey": "user-key-1"}))
        assert carried(resumed) == {"x-api-key": "user-key-1"}
        assert texts(resumed) == ["done"]
        assert {e.invocation_id for e in resumed} == {paused[0].invocation_id}
        assert len(model.requests) == 2
        assert await send(runner, answer(asked, {"authType": "apiKey", "apiKey": "x"})) == []
    finally:
        await runner.close()


async def test_oauth2_sign_in_for_a_toolset_is_saved_and_reused(
    session_service: BaseSessionService, mcp_url: str, oauth: OAuthServer
) -> None:
    toolset = oauth_toolset(mcp_url, oauth)
    model = ScriptedModel(
        replies=[
            function_call("credentials", {}, id="t1"),
            "first",
            function_call("credentials", {}, id="t2"),
            "again",
        ]
    )
    agent = LlmAgent(name="a", model=model, tools=[toolset])
    runner = Runner(
        app_name=APP,
        agent=agent,
        session_service=session_service,
        credential_service=InMemoryCredentialService(),
    )
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
    try:
        asked = request_of(await send(runner, "hello"))
        requested = (asked.args or {})["authConfig"]
        oauth2 = requested["exchangedAuthCredential"]["oauth2"]
        assert "clientSecret" not in oauth2
        redirect = await oauth.sign_in_async(oauth2["authUri"], user="dana")
        resumed = await send(
            runner,
            answer(
                asked,
                {
                    **requested["exchangedAuthCredential"],
                    "oauth2": {**oauth2, "authResponseUri": redirect},
                },
            ),
        )
        header = carried(resumed)["authorization"]
        assert header.startswith("Bearer ")
        assert (oauth.token_info(header.removeprefix("Bearer ")) or {})["user"] == "dana"
        exchanges = oauth.token_request_count("authorization_code")
        # the next turn finds the saved token: no new sign-in, no new exchange
        later = await send(runner, "again")
        assert carried(later)["authorization"] == header
        assert texts(later) == ["again"]
        assert oauth.token_request_count("authorization_code") == exchanges
    finally:
        await runner.close()
