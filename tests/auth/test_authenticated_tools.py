"""AuthenticatedFunctionTool's declaration and arguments, and BaseAuthenticatedTool."""

from __future__ import annotations

from typing import Any

import pytest

from adk_runtime.auth import AuthConfig, AuthCredential, AuthCredentialTypes
from adk_runtime.tools import ToolContext
from adk_runtime.tools.authenticated_function_tool import AuthenticatedFunctionTool
from adk_runtime.tools.base_authenticated_tool import PENDING_AUTHORIZATION, BaseAuthenticatedTool
from tests.auth.agents import tool_context
from tests.auth.helpers import client_credentials_scheme, oauth2_credential
from tests.auth.oauth_server import OAuthServer

API_KEY = AuthCredential(auth_type=AuthCredentialTypes.API_KEY, api_key="key-123")


def api_key_config() -> AuthConfig:
    from fastapi.openapi.models import APIKey

    return AuthConfig(
        auth_scheme=APIKey.model_validate({"in": "header", "name": "X-Key"}),
        raw_auth_credential=API_KEY,
    )


def search(
    query: str, limit: int, credential: AuthCredential, tool_context: ToolContext
) -> dict[str, Any]:
    """Search the user's documents."""
    return {
        "query": query,
        "limit": limit,
        "key": credential.api_key,
        "call": tool_context.function_call_id,
    }


def test_the_declaration_hides_credential_and_context() -> None:
    tool = AuthenticatedFunctionTool(func=search, auth_config=api_key_config())

    declaration = tool._get_declaration()

    assert declaration is not None
    assert declaration.name == "search"
    assert declaration.description == "Search the user's documents."
    schema = declaration.parameters_json_schema
    assert isinstance(schema, dict)
    assert set(schema["properties"]) == {"query", "limit"}
    assert schema["required"] == ["query", "limit"]


async def test_the_function_gets_the_credential_and_the_model_cannot_set_it() -> None:
    tool = AuthenticatedFunctionTool(func=search, auth_config=api_key_config())
    context = await tool_context()

    result = await tool.run_async(
        args={"query": "q", "limit": "3", "credential": {"api_key": "forged"}},
        tool_context=context,
    )

    assert result == {"query": "q", "limit": 3, "key": "key-123", "call": "call-1"}


async def test_a_function_without_credential_parameter_runs_unchanged() -> None:
    def plain(x: int) -> int:
        """Double x."""
        return x * 2

    tool = AuthenticatedFunctionTool(func=plain, auth_config=api_key_config())

    assert (
        await tool.run_async(
            args={"x": 4, "credential": "ignored"}, tool_context=await tool_context()
        )
        == 8
    )


class Reporter(BaseAuthenticatedTool):
    def __init__(self, auth_config: AuthConfig | None, **kwargs: Any) -> None:
        super().__init__(name="reporter", description="Report.", auth_config=auth_config, **kwargs)
        self.seen: list[AuthCredential | None] = []

    async def _run_async_impl(
        self, *, args: dict[str, Any], tool_context: ToolContext, credential: AuthCredential
    ) -> Any:
        self.seen.append(credential)
        return {"ok": True}


async def test_base_authenticated_tool_passes_the_credential() -> None:
    tool = Reporter(api_key_config())

    assert await tool.run_async(args={}, tool_context=await tool_context()) == {"ok": True}
    assert tool.seen == [API_KEY]


async def test_base_authenticated_tool_without_config_runs_without_credential() -> None:
    tool = Reporter(None)

    assert await tool.run_async(args={}, tool_context=await tool_context()) == {"ok": True}
    assert tool.seen == [None]


@pytest.mark.parametrize("custom", [None, {"status": "sign in first"}])
async def test_without_credential_the_tool_requests_it_and_answers_pending(
    oauth_server: OAuthServer, custom: dict[str, str] | None
) -> None:
    from tests.auth.helpers import REDIRECT_URI, code_scheme

    config = AuthConfig(
        auth_scheme=code_scheme(oauth_server),
        raw_auth_credential=oauth2_credential(redirect_uri=REDIRECT_URI),
    )
    tool = Reporter(config, response_for_auth_required=custom)
    context = await tool_context()

    result = await tool.run_async(args={}, tool_context=context)

    assert result == (custom or PENDING_AUTHORIZATION)
    assert tool.seen == []
    assert list(context.actions.requested_auth_configs) == ["call-1"]


async def test_client_credentials_through_the_base_tool(oauth_server: OAuthServer) -> None:
    config = AuthConfig(
        auth_scheme=client_credentials_scheme(oauth_server), raw_auth_credential=oauth2_credential()
    )
    tool = Reporter(config)

    await tool.run_async(args={}, tool_context=await tool_context())

    [credential] = tool.seen
    assert credential is not None
    assert credential.oauth2 is not None
    assert oauth_server.token_info(credential.oauth2.access_token or "") is not None
