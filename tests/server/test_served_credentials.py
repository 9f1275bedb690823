"""``create_app(credential_service=...)``: a served agent's tools keep a user's sign-in."""

from __future__ import annotations

import httpx

from adk_runtime.agents import LlmAgent
from adk_runtime.auth.credential_service import InMemoryCredentialService
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.server import create_app
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.auth.helpers import api_key_config


async def remember(key: str, tool_context: ToolContext) -> str:
    """Keep the user's CRM key."""
    await tool_context.save_credential(api_key_config(key))
    return "saved"


async def recall(tool_context: ToolContext) -> str:
    """The user's CRM key."""
    saved = await tool_context.load_credential(api_key_config())
    return (saved.api_key or "") if saved is not None else "none"


async def test_a_saved_sign_in_is_there_on_the_next_turn(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(
        replies=[function_call("remember", {"key": "k-9"}), "ok", function_call("recall", {}), "ok"]
    )
    agent = LlmAgent(name="crm", model=model, tools=[remember, recall])
    credentials = InMemoryCredentialService()
    server = create_app(
        agent=agent, session_service=session_service, credential_service=credentials
    )
    transport = httpx.ASGITransport(app=server)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        (await http.post("/apps/crm/users/u/sessions/s")).raise_for_status()
        answers = []
        for text in ("save my key", "what is my key?"):
            message = {"role": "user", "parts": [{"text": text}]}
            body = {"appName": "crm", "userId": "u", "sessionId": "s", "newMessage": message}
            reply = await http.post("/run", json=body)
            reply.raise_for_status()
            answers += [
                part["functionResponse"]["response"]
                for event in reply.json()
                for part in event["content"]["parts"]
                if "functionResponse" in part
            ]
    assert answers == [{"result": "saved"}, {"result": "k-9"}]
