"""Agents with authenticated tools that call the loopback server's protected API."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.auth import AuthConfig, AuthCredential
from adk_runtime.auth.credential_service import BaseCredentialService
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext
from adk_runtime.tools.authenticated_function_tool import AuthenticatedFunctionTool
from tests.auth.oauth_server import OAuthServer

APP = "auth-app"


def whoami_tool(server: OAuthServer, auth_config: AuthConfig) -> AuthenticatedFunctionTool:
    async def whoami(credential: AuthCredential) -> dict[str, Any]:
        """Say who the signed-in user is, as the protected API sees it."""
        assert credential.oauth2 is not None
        client = await asyncio.to_thread(httpx.AsyncClient)
        async with client:
            response = await client.get(
                f"{server.resource_url}/me",
                headers={"Authorization": f"Bearer {credential.oauth2.access_token}"},
            )
        return {"status": response.status_code, **response.json()}

    return AuthenticatedFunctionTool(func=whoami, auth_config=auth_config)


def whoami_runner(
    server: OAuthServer,
    auth_config: AuthConfig,
    session_service: BaseSessionService,
    *,
    credential_service: BaseCredentialService | None = None,
    app_name: str = APP,
) -> Runner:
    """A runner whose model calls ``whoami`` on every user message, then says "done"."""

    def reply(request: Any) -> str | types.Part:
        last = request.contents[-1] if request.contents else None
        answered = last is not None and any(p.function_response for p in last.parts or [])
        return "done" if answered else function_call("whoami")

    model = ScriptedModel(handler=reply)
    agent = LlmAgent(name="assistant", model=model, tools=[whoami_tool(server, auth_config)])
    return Runner(
        app_name=app_name,
        agent=agent,
        session_service=session_service,
        credential_service=credential_service,
    )


async def ask(
    runner: Runner, user_id: str, session_id: str, message: types.Content | str
) -> list[Event]:
    content = (
        types.Content(role="user", parts=[types.Part(text=message)])
        if isinstance(message, str)
        else message
    )
    return [
        event
        async for event in runner.run_async(
            user_id=user_id, session_id=session_id, new_message=content
        )
    ]


def whoami_answers(events: list[Event]) -> list[Any]:
    return [
        part.function_response.response
        for event in events
        for part in (event.content.parts or [] if event.content else [])
        if part.function_response and part.function_response.name == "whoami"
    ]


async def tool_context(user_id: str = "u1") -> ToolContext:
    """A real tool context for a call ``call-1`` in a fresh in-memory session."""
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name=APP, user_id=user_id)
    invocation = InvocationContext(
        invocation_id="e-test",
        session=session,
        agent=LlmAgent(name="assistant", model=ScriptedModel(replies=[])),
        session_service=sessions,
    )
    return ToolContext(invocation, function_call_id="call-1")
