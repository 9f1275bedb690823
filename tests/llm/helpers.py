"""Shared helpers of the LLM-agent tests."""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_runtime.agents import BaseAgent, RunConfig
from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows.functions import REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
from adk_runtime.memory.in_memory import InMemoryMemoryService
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, Session

APP = "app"
USER = "u1"


async def start(
    agent: BaseAgent, service: BaseSessionService, *, session_id: str = "s1", **kwargs: Any
) -> Runner:
    runner = Runner(
        app_name=APP,
        agent=agent,
        session_service=service,
        artifact_service=kwargs.pop("artifact_service", InMemoryArtifactService()),
        memory_service=kwargs.pop("memory_service", InMemoryMemoryService()),
    )
    await service.create_session(app_name=APP, user_id=USER, session_id=session_id, **kwargs)
    return runner


def user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


async def send(
    runner: Runner,
    message: str | types.Content,
    *,
    session_id: str = "s1",
    run_config: RunConfig | None = None,
) -> list[Event]:
    content = user(message) if isinstance(message, str) else message
    return [
        event
        async for event in runner.run_async(
            user_id=USER, session_id=session_id, new_message=content, run_config=run_config
        )
    ]


async def two_turns(agent: BaseAgent, first: str | types.Content) -> list[str]:
    """The last text of each of two turns on a fresh session: ``first``, then "Thanks".

    The second turn sends the first one again as history.
    """
    from adk_runtime.sessions import InMemorySessionService

    runner = await start(agent, InMemorySessionService())
    return [texts(await send(runner, message))[-1] for message in (first, "Thanks")]


def upload(text: str, *attachments: types.Part) -> types.Content:
    """A user message: ``text`` and the attachments."""
    return types.Content(role="user", parts=[types.Part(text=text), *attachments])


async def stored(runner: Runner, session_id: str = "s1") -> Session:
    session = await runner.session_service.get_session(
        app_name=APP, user_id=USER, session_id=session_id
    )
    assert session is not None
    return session


def texts(events: list[Event]) -> list[str]:
    return [
        "".join(part.text or "" for part in event.content.parts or [])
        for event in events
        if event.content is not None and any(part.text for part in event.content.parts or [])
    ]


def flat(contents: list[types.Content]) -> list[str]:
    """Each part of the request as a short label, in order."""
    labels: list[str] = []
    for content in contents:
        for part in content.parts or []:
            if part.function_call is not None:
                labels.append(f"call:{part.function_call.id}")
            elif part.function_response is not None:
                response = part.function_response
                labels.append(f"response:{response.id}={(response.response or {}).get('r')}")
            else:
                labels.append(f"{content.role}:{part.text}")
    return labels


def sent(contents: list[types.Content]) -> list[str]:
    """Each part of a model request as ``role: text`` (``role: call NAME``, ``role: response
    NAME`` for calls and answers)."""
    shown = []
    for content in contents:
        for part in content.parts or []:
            if part.text:
                shown.append(f"{content.role}: {part.text}")
            elif part.function_call:
                shown.append(f"{content.role}: call {part.function_call.name}")
            elif part.function_response:
                shown.append(f"{content.role}: response {part.function_response.name}")
    return shown


def request_of(events: list[Event]) -> Event:
    """The event holding the adk_request_confirmation call."""
    (found,) = [
        event
        for event in events
        if any(
            c.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME for c in event.get_function_calls()
        )
    ]
    return found
