"""Tool authentication: a call asks for the user's credential, pauses, and runs once given it.

On every backend; OAuth2 against a real authorization server on loopback
(``tests/auth/oauth_server.py``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import httpx
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
from adk_runtime.auth import (
    AuthConfig,
    AuthCredential,
    AuthCredentialTypes,
    OAuth2Auth,
    auth_handler,
)
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows.functions import REQUEST_EUC_FUNCTION_CALL_NAME
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext
from tests.auth.oauth_server import OAuthServer, running_oauth_server
from tests.llm.helpers import send, start, stored, texts

KEY_CONFIG = AuthConfig(
    auth_scheme=APIKey(**{"in": APIKeyIn.header}, name="X-Weather-Key"),  # type: ignore[arg-type]
    raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.API_KEY),
)
SEEN: list[str] = []


def weather(city: str, tool_context: ToolContext) -> dict[str, Any]:
    """The weather in a city (needs the user's API key)."""
    credential = tool_context.get_auth_response(KEY_CONFIG)
    if credential is None or not credential.api_key:
        tool_context.request_credential(KEY_CONFIG)
        return {"status": "waiting for the user's API key"}
    SEEN.append(credential.api_key)
    return {"city": city, "forecast": "sunny"}


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    SEEN.clear()
    yield
    auth_handler._SECRETS.clear()


def weather_agent(replies: list[Any]) -> tuple[LlmAgent, ScriptedModel]:
    model = ScriptedModel(replies=replies)
    return LlmAgent(name="wx", model=model, tools=[weather]), model


def request_of(events: list[Event]) -> types.FunctionCall:
    (call,) = [
        c
        for e in events
        for c in e.get_function_calls()
        if c.name == REQUEST_EUC_FUNCTION_CALL_NAME
    ]
    return call


def answer(call: types.FunctionCall, exchanged: dict[str, Any], **changes: Any) -> types.Content:
    """The client's answer: the request's auth config with exchangedAuthCredential filled in."""
    config = dict((call.args or {})["authConfig"])
    config["exchangedAuthCredential"] = exchanged
    config.update(changes)
    response = types.FunctionResponse(
        id=call.id, name=REQUEST_EUC_FUNCTION_CALL_NAME, response=config
    )
    return types.Content(role="user", parts=[types.Part(function_response=response)])


def model_saw(model: ScriptedModel, index: int) -> set[str]:
    return {
        (part.function_call or part.function_response).name or ""  # type: ignore[union-attr]
        for content in model.requests[index].contents
        for part in content.parts or []
        if part.function_call or part.function_response
    }


async def test_api_key_request_pauses_and_the_answer_resumes_the_call(
    session_service: BaseSessionService,
) -> None:
    agent, model = weather_agent(
        [function_call("weather", {"city": "Oslo"}, id="w1"), "Sunny in Oslo."]
    )
    runner = await start(agent, session_service)
    paused = await send(runner, "weather in Oslo?")
    call, request, pending = paused  # the request before the pending response, as in google-adk
    assert call.get_function_calls()[0].id == "w1"
    asked = request_of(paused)
    assert request.long_running_tool_ids == {asked.id}
    assert asked.args is not None
    assert asked.args["functionCallId"] == "w1"
    assert asked.args["authConfig"]["credentialKey"] == KEY_CONFIG.credential_key
    assert pending.get_function_responses()[0].response == {
        "status": "waiting for the user's API key"
    }
    assert len(model.requests) == 1
    assert SEEN == []

    resumed = await send(runner, answer(asked, {"authType": "apiKey", "apiKey": "k-123"}))
    assert SEEN == ["k-123"]
    assert resumed[0].get_function_responses()[0].response == {"city": "Oslo", "forecast": "sunny"}
    assert texts(resumed) == ["Sunny in Oslo."]
    assert {e.invocation_id for e in resumed} == {call.invocation_id}
    assert model_saw(model, 1) == {"weather"}  # never the credential plumbing
    session = await stored(runner)
    # the key lives for the invocation only (a temp: key), never in the stored state
    assert not any("k-123" in json.dumps(v, default=str) for v in session.state.values())
    assert not any(key.startswith("temp:") for key in session.state)


async def test_answer_after_a_restart_resumes_on_a_new_runner(
    session_service: BaseSessionService,
) -> None:
    agent, _ = weather_agent([function_call("weather", {"city": "Rome"}, id="w2"), "ok"])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "weather in Rome?"))
    fresh, _ = weather_agent(["Rome is sunny."])  # a new process: new agent, new runner
    from adk_runtime.runners import Runner

    again = Runner(app_name=runner.app_name, agent=fresh, session_service=session_service)
    resumed = await send(again, answer(asked, {"authType": "apiKey", "apiKey": "k-9"}))
    assert SEEN == ["k-9"]
    assert texts(resumed) == ["Rome is sunny."]


async def test_resent_answer_runs_nothing_again(session_service: BaseSessionService) -> None:
    agent, model = weather_agent([function_call("weather", {"city": "Lima"}, id="w3"), "ok"])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "weather in Lima?"))
    message = answer(asked, {"authType": "apiKey", "apiKey": "k-1"})
    await send(runner, message)
    assert await send(runner, message) == []
    assert SEEN == ["k-1"]
    assert len(model.requests) == 2


async def test_agent_entered_again_after_the_answer_goes_on(
    session_service: BaseSessionService,
) -> None:
    # After the call ran with the credential, the conversation goes to a sub-agent and back:
    # the sub-agent, which asked for nothing, sees the answer as the last user message too.
    helper = LlmAgent(
        name="helper",
        model=ScriptedModel(replies=[function_call("transfer_to_agent", {"agent_name": "wx"})]),
    )
    model = ScriptedModel(
        replies=[
            function_call("weather", {"city": "Kyiv"}, id="w9"),
            function_call("transfer_to_agent", {"agent_name": "helper"}),
            "back with the weather",
        ]
    )
    agent = LlmAgent(name="wx", model=model, tools=[weather], sub_agents=[helper])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "weather in Kyiv?"))
    resumed = await send(runner, answer(asked, {"authType": "apiKey", "apiKey": "k-7"}))
    assert SEEN == ["k-7"]
    assert texts(resumed) == ["back with the weather"]
    assert len(model.requests) == 3


async def test_an_answer_to_no_request_is_refused(session_service: BaseSessionService) -> None:
    agent, _ = weather_agent([function_call("weather", {"city": "Bern"}, id="w4"), "ok"])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "weather in Bern?"))
    forged = asked.model_copy(update={"id": "adk-not-a-request"})
    before = await stored(runner)
    with pytest.raises(InputValidationError, match="no credential request"):
        await send(runner, answer(forged, {"authType": "apiKey", "apiKey": "k"}))
    assert SEEN == []
    assert (await stored(runner)).events == before.events  # the refused answer is not stored


async def test_an_answer_without_a_credential_is_refused(
    session_service: BaseSessionService,
) -> None:
    agent, _ = weather_agent([function_call("weather", {"city": "Kyiv"}, id="w5"), "ok"])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "weather in Kyiv?"))
    response = types.FunctionResponse(
        id=asked.id, name=REQUEST_EUC_FUNCTION_CALL_NAME, response={"nothing": "here"}
    )
    before = await stored(runner)
    with pytest.raises(InputValidationError, match="carries no credential"):
        await send(
            runner, types.Content(role="user", parts=[types.Part(function_response=response)])
        )
    assert SEEN == []
    assert (await stored(runner)).events == before.events  # the refused answer is not stored


# -- OAuth2 against a real authorization server -------------------------------------------

REDIRECT = "http://127.0.0.1:9/callback"


@pytest.fixture(scope="module")
def oauth() -> Iterator[OAuthServer]:
    with running_oauth_server(
        clients={"cal-client": "cal-secret-77", "cal-public": None}
    ) as server:
        yield server


def oauth_config(server: OAuthServer, client_id: str, secret: str | None) -> AuthConfig:
    scheme = OAuth2(
        flows=OAuthFlows(
            authorizationCode=OAuthFlowAuthorizationCode(
                authorizationUrl=server.authorization_endpoint,
                tokenUrl=server.token_endpoint,
                scopes={"read": "read your calendar"},
            )
        )
    )
    return AuthConfig(
        auth_scheme=scheme,
        raw_auth_credential=AuthCredential(
            auth_type=AuthCredentialTypes.OAUTH2,
            oauth2=OAuth2Auth(client_id=client_id, client_secret=secret, redirect_uri=REDIRECT),
        ),
    )


def calendar_agent(server: OAuthServer, config: AuthConfig, replies: list[Any]) -> LlmAgent:
    async def whoami(tool_context: ToolContext) -> dict[str, Any]:
        """Who the signed-in user is, asked of the calendar API with their token."""
        credential = tool_context.get_auth_response(config)
        token = credential.oauth2.access_token if credential and credential.oauth2 else None
        if not token:
            tool_context.request_credential(config)
            return {"status": "waiting for sign-in"}
        async with httpx.AsyncClient(verify=False) as client:  # plain HTTP on loopback
            response = await client.get(
                f"{server.resource_url}/me", headers={"Authorization": f"Bearer {token}"}
            )
        SEEN.append(response.json()["user"])
        return {"user": response.json()["user"]}

    return LlmAgent(name="cal", model=ScriptedModel(replies=replies), tools=[whoami])


def stored_text(events: list[Event]) -> str:
    return json.dumps([e.model_dump(mode="json") for e in events])


async def test_oauth2_sign_in_resumes_with_a_token_and_no_secret_is_stored(
    session_service: BaseSessionService, oauth: OAuthServer
) -> None:
    config = oauth_config(oauth, "cal-client", "cal-secret-77")
    agent = calendar_agent(oauth, config, [function_call("whoami", {}, id="o1"), "You are alice."])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "who am I?"))
    requested = (asked.args or {})["authConfig"]
    oauth2 = requested["exchangedAuthCredential"]["oauth2"]
    assert oauth2["authUri"].startswith(oauth.authorization_endpoint)
    assert oauth2["state"]
    assert f"state={oauth2['state']}" in oauth2["authUri"]
    redirect = await oauth.sign_in_async(oauth2["authUri"], user="alice")

    exchanged = dict(requested["exchangedAuthCredential"])
    exchanged["oauth2"] = {**oauth2, "authResponseUri": redirect}
    resumed = await send(runner, answer(asked, exchanged))
    assert SEEN == ["alice"]
    assert resumed[0].get_function_responses()[0].response == {"user": "alice"}
    assert texts(resumed) == ["You are alice."]
    # the client secret went neither to the client nor into the session; no token is stored
    session = await stored(runner)
    dumped = stored_text(session.events) + json.dumps(session.state, default=str)
    assert "cal-secret-77" not in dumped
    assert "accessToken" not in dumped
    assert "access_token" not in dumped


async def test_oauth2_answer_with_another_state_is_refused_before_any_exchange(
    session_service: BaseSessionService, oauth: OAuthServer
) -> None:
    config = oauth_config(oauth, "cal-client", "cal-secret-77")
    agent = calendar_agent(oauth, config, [function_call("whoami", {}, id="o2"), "?"])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "who am I?"))
    requested = (asked.args or {})["authConfig"]
    oauth2 = requested["exchangedAuthCredential"]["oauth2"]
    redirect = await oauth.sign_in_async(oauth2["authUri"])
    forged = redirect.replace(f"state={oauth2['state']}", "state=attacker")
    before = len(oauth.token_requests)
    exchanged = {
        **requested["exchangedAuthCredential"],
        "oauth2": {**oauth2, "authResponseUri": forged, "state": "attacker"},
    }
    events = (await stored(runner)).events
    with pytest.raises(InputValidationError, match="state does not match"):
        await send(runner, answer(asked, exchanged))
    assert len(oauth.token_requests) == before
    assert SEEN == []
    assert (await stored(runner)).events == events  # the refused answer is not stored


async def test_oauth2_answer_cannot_redirect_the_exchange_to_another_server(
    session_service: BaseSessionService, oauth: OAuthServer
) -> None:
    """The scheme and endpoints come from the stored request, never from the client."""
    config = oauth_config(oauth, "cal-public", None)
    agent = calendar_agent(oauth, config, [function_call("whoami", {}, id="o3"), "ok"])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "who am I?"))
    requested = (asked.args or {})["authConfig"]
    oauth2 = requested["exchangedAuthCredential"]["oauth2"]
    redirect = await oauth.sign_in_async(oauth2["authUri"])
    evil_scheme = json.loads(
        json.dumps(requested["authScheme"]).replace(oauth.base_url, "http://127.0.0.1:1")
    )
    exchanged = {
        **requested["exchangedAuthCredential"],
        "oauth2": {**oauth2, "authResponseUri": redirect, "clientId": "someone-else"},
    }
    await send(runner, answer(asked, exchanged, authScheme=evil_scheme))
    assert SEEN == ["alice"]  # exchanged at the stored token endpoint, for the stored client
    assert oauth.token_requests[-1].client_id == "cal-public"


async def test_oauth2_public_client_uses_pkce_and_resumes_after_a_restart(
    session_service: BaseSessionService, oauth: OAuthServer
) -> None:
    config = oauth_config(oauth, "cal-public", None)
    agent = calendar_agent(oauth, config, [function_call("whoami", {}, id="o4"), "ok"])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "who am I?"))
    requested = (asked.args or {})["authConfig"]
    oauth2 = requested["exchangedAuthCredential"]["oauth2"]
    assert "code_challenge_method=S256" in oauth2["authUri"]
    redirect = await oauth.sign_in_async(oauth2["authUri"], user="bob")
    # the client echoes only what it must: the redirect URI (no verifier, no client)
    exchanged = {
        "authType": "oauth2",
        "oauth2": {"authResponseUri": redirect, "state": oauth2["state"]},
    }
    auth_handler._SECRETS.clear()  # a new process
    fresh = calendar_agent(oauth, config, ["You are bob."])
    from adk_runtime.runners import Runner

    again = Runner(app_name=runner.app_name, agent=fresh, session_service=session_service)
    resumed = await send(again, answer(asked, exchanged))
    assert SEEN == ["bob"]
    assert texts(resumed) == ["You are bob."]


async def test_no_secret_or_token_in_the_logs(
    session_service: BaseSessionService, oauth: OAuthServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    config = oauth_config(oauth, "cal-client", "cal-secret-77")
    agent = calendar_agent(oauth, config, [function_call("whoami", {}, id="o5"), "ok"])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "who am I?"))
    requested = (asked.args or {})["authConfig"]
    oauth2 = requested["exchangedAuthCredential"]["oauth2"]
    redirect = await oauth.sign_in_async(oauth2["authUri"])
    code = dict(httpx.URL(redirect).params)["code"]
    exchanged = {
        **requested["exchangedAuthCredential"],
        "oauth2": {**oauth2, "authResponseUri": redirect},
    }
    await send(runner, answer(asked, exchanged))
    assert SEEN == ["alice"]
    ours = [r for r in caplog.records if r.name.startswith(("adk_runtime", "authlib"))]
    assert ours  # the exchange is logged (without its secrets)
    logged = "\n".join(record.getMessage() for record in ours)
    assert "cal-secret-77" not in logged
    assert code not in logged


async def test_confidential_client_after_a_restart_a_sync_tool_exchanges_the_answer(
    session_service: BaseSessionService, oauth: OAuthServer
) -> None:
    """The answer reaches a process that never saw the secret: the tool's own config has it."""
    config = oauth_config(oauth, "cal-client", "cal-secret-77")

    def whoami_sync(tool_context: ToolContext) -> dict[str, Any]:
        """Who the signed-in user is (a sync tool: it runs in a worker thread)."""
        credential = tool_context.get_auth_response(config)
        token = credential.oauth2.access_token if credential and credential.oauth2 else None
        if not token:
            tool_context.request_credential(config)
            return {"status": "waiting for sign-in"}
        with httpx.Client(verify=False) as client:
            user = client.get(
                f"{oauth.resource_url}/me", headers={"Authorization": f"Bearer {token}"}
            ).json()["user"]
        SEEN.append(user)
        return {"user": user}

    def agent(replies: list[Any]) -> LlmAgent:
        return LlmAgent(name="cal", model=ScriptedModel(replies=replies), tools=[whoami_sync])

    runner = await start(agent([function_call("whoami_sync", {}, id="o6")]), session_service)
    asked = request_of(await send(runner, "who am I?"))
    requested = (asked.args or {})["authConfig"]
    oauth2 = requested["exchangedAuthCredential"]["oauth2"]
    redirect = await oauth.sign_in_async(oauth2["authUri"], user="carol")
    exchanged = {
        **requested["exchangedAuthCredential"],
        "oauth2": {**oauth2, "authResponseUri": redirect},
    }
    auth_handler._SECRETS.clear()  # a new process: the request's secret is not in memory
    from adk_runtime.runners import Runner

    again = Runner(
        app_name=runner.app_name, agent=agent(["You are carol."]), session_service=session_service
    )
    resumed = await send(again, answer(asked, exchanged))
    assert SEEN == ["carol"]
    assert texts(resumed) == ["You are carol."]
    assert oauth.token_requests[-1].client_id == "cal-client"
    assert oauth.token_requests[-1].auth_method == "client_secret_basic"


async def test_a_refused_code_asks_the_user_again(
    session_service: BaseSessionService, oauth: OAuthServer
) -> None:
    config = oauth_config(oauth, "cal-client", "cal-secret-77")
    agent = calendar_agent(oauth, config, [function_call("whoami", {}, id="o7"), "ok"])
    runner = await start(agent, session_service)
    asked = request_of(await send(runner, "who am I?"))
    requested = (asked.args or {})["authConfig"]
    oauth2 = requested["exchangedAuthCredential"]["oauth2"]
    redirect = f"{REDIRECT}?code=not-a-code&state={oauth2['state']}"
    exchanged = {
        **requested["exchangedAuthCredential"],
        "oauth2": {**oauth2, "authResponseUri": redirect},
    }
    resumed = await send(runner, answer(asked, exchanged))
    assert oauth.token_requests[-1].error == "invalid_grant"
    again = request_of(resumed)  # the call ran without a credential and asked again
    assert again.id != asked.id
    assert resumed[-1].get_function_responses()[0].response == {"status": "waiting for sign-in"}
    assert SEEN == []
