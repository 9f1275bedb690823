"""An agent whose tool needs the user's API key, for the HTTP tests (offline model)."""

from __future__ import annotations

from typing import Any

from fastapi.openapi.models import APIKey, APIKeyIn

from adk_runtime.agents import LlmAgent
from adk_runtime.auth import AuthConfig, AuthCredential, AuthCredentialTypes
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext

KEY = AuthConfig(
    auth_scheme=APIKey(**{"in": APIKeyIn.header}, name="X-Key"),  # type: ignore[arg-type]
    raw_auth_credential=AuthCredential(auth_type=AuthCredentialTypes.API_KEY),
)


def balance(tool_context: ToolContext) -> dict[str, Any]:
    """The user's balance at their bank (needs their API key)."""
    credential = tool_context.get_auth_response(KEY)
    if credential is None:
        tool_context.request_credential(KEY)
        return {"status": "waiting for the API key"}
    return {"balance": 42, "key_length": len(credential.api_key or "")}


root_agent = LlmAgent(
    name="bank",
    model=ScriptedModel(replies=[function_call("balance", {}, id="b1"), "You have 42."]),
    tools=[balance],
)
