"""google-adk 2.13's members of public classes that code reads: they answer as there."""

from __future__ import annotations

import io
from typing import Any

from fastapi.openapi.models import APIKey, APIKeyIn
from mcp.types import Tool

from adk_runtime.agents import LlmAgent
from adk_runtime.auth.auth_credential import AuthCredential, AuthCredentialTypes
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools.mcp_tool import McpTool, McpToolset, StreamableHTTPConnectionParams


def first(callback_context: CallbackContext) -> None:
    return None


def second(callback_context: CallbackContext) -> None:
    return None


def before_model(callback_context: CallbackContext, llm_request: Any) -> None:
    return None


def test_the_canonical_callback_lists() -> None:
    agent = LlmAgent(
        name="a",
        model=ScriptedModel(replies=[]),
        before_agent_callback=[first, second],
        after_agent_callback=first,
        before_model_callback=before_model,
    )
    assert agent.canonical_before_agent_callbacks == [first, second]
    assert agent.canonical_after_agent_callbacks == [first]
    assert agent.canonical_before_model_callbacks == [before_model]
    assert agent.canonical_after_model_callbacks == []
    assert agent.canonical_before_tool_callbacks == []
    assert agent.canonical_after_tool_callbacks == []
    assert agent.canonical_on_model_error_callbacks == []
    assert agent.canonical_on_tool_error_callbacks == []


async def test_canonical_model_async_is_the_agents_model() -> None:
    model = ScriptedModel(replies=[])
    agent = LlmAgent(name="a", model=model)
    assert await agent.canonical_model_async(None) is model  # type: ignore[arg-type]


async def test_flush_is_accepted_by_every_service() -> None:
    service = InMemorySessionService()
    await service.flush()  # every store commits each event before append_event returns
    session = await service.create_session(app_name="a", user_id="u")
    await service.flush()
    assert await service.get_session(app_name="a", user_id="u", session_id=session.id)


def test_an_mcp_toolset_shows_what_it_was_given() -> None:
    scheme = APIKey(**{"in": APIKeyIn.header, "name": "X-Key"})
    credential = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="k")
    log = io.StringIO()

    def headers(context: Any) -> dict[str, str]:
        return {}

    params = StreamableHTTPConnectionParams(url="http://127.0.0.1:9/mcp")
    toolset = McpToolset(
        connection_params=params,
        errlog=log,
        require_confirmation=True,
        header_provider=headers,
        auth_scheme=scheme,
        auth_credential=credential,
    )
    assert toolset.connection_params is params
    assert toolset.auth_scheme is scheme
    assert toolset.auth_credential is credential
    assert toolset.require_confirmation is True
    assert toolset.header_provider is headers
    assert toolset.errlog is log
    plain = McpToolset(connection_params=params)
    assert (plain.auth_scheme, plain.auth_credential, plain.header_provider) == (None, None, None)
    assert plain.require_confirmation is False


def test_an_mcp_tool_reads_its_mcp_apps_metadata() -> None:
    manager = McpToolset(
        connection_params=StreamableHTTPConnectionParams(url="http://127.0.0.1:9/mcp")
    )._mcp_session_manager

    def tool(meta: dict[str, Any] | None) -> McpTool:
        raw = Tool(name="t", input_schema={"type": "object"}, _meta=meta)
        return McpTool(mcp_tool=raw, mcp_session_manager=manager)

    nested = tool({"ui": {"resourceUri": "ui://charts/1", "visibility": ["model", "app"]}})
    assert nested.mcp_app_resource_uri == "ui://charts/1"
    assert nested.visibility == ["model", "app"]
    flat = tool({"ui/resourceUri": "ui://flat"})
    assert flat.mcp_app_resource_uri == "ui://flat"
    assert flat.visibility == []
    bare = tool(None)
    assert (bare.mcp_app_resource_uri, bare.visibility) == (None, [])
    # Only ui:// names an MCP Apps resource: another scheme there is not one.
    for uri in ("http://example.com/app", "file:///etc/passwd", "", 7):
        assert tool({"ui": {"resourceUri": uri}}).mcp_app_resource_uri is None
        assert tool({"ui/resourceUri": uri}).mcp_app_resource_uri is None


def test_has_auth_response_reads_the_answer_without_exchanging_it() -> None:
    from fastapi.openapi.models import OAuth2, OAuthFlowAuthorizationCode, OAuthFlows

    from adk_runtime.auth import AuthConfig
    from adk_runtime.auth.auth_credential import OAuth2Auth
    from adk_runtime.auth.auth_handler import AuthHandler

    flows = OAuthFlows(
        authorizationCode=OAuthFlowAuthorizationCode(
            authorizationUrl="https://id.example/auth", tokenUrl="https://id.example/token"
        )
    )
    config = AuthConfig(auth_scheme=OAuth2(flows=flows), credential_key="crm")
    handler = AuthHandler(config)
    assert handler.has_auth_response({}) is False
    # an answer not exchanged yet (it has only the redirect): reading it calls no server
    answer = AuthCredential(
        auth_type=AuthCredentialTypes.OAUTH2,
        oauth2=OAuth2Auth(auth_response_uri="https://app.example/cb?code=c"),
    )
    assert handler.has_auth_response({"temp:crm": answer}) is True
    assert handler.has_auth_response({"crm": "a-token"}) is True
    assert handler.has_auth_response({"crm": ""}) is False
