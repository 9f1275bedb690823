"""RemoteA2aAgent against a real A2A server on loopback, through the Runner, on every backend."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from google.genai import types

from adk_runtime.agents._quoting import quote
from adk_runtime.agents.remote_a2a_agent import (
    A2A_METADATA_PREFIX,
    AgentCardResolutionError,
    RemoteA2aAgent,
)
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from tests.a2a.a2a_server import A2AServer

APP = "a2a_app"


@pytest.fixture
async def server() -> AsyncIterator[A2AServer]:
    running = A2AServer()
    await running.start()
    yield running
    await running.stop()


def _user(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _answer(call_id: str, text: str) -> types.Content:
    response = types.FunctionResponse(id=call_id, name="x", response={"result": text})
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def _turn(runner: Runner, message: types.Content) -> list[Event]:
    return [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]


def _texts(event: Event) -> list[str]:
    return [p.text for p in (event.content.parts or [])] if event.content else []  # type: ignore[misc]


async def _stored(service: BaseSessionService) -> list[Event]:
    session = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert session is not None
    return session.events


async def _runner(service: BaseSessionService, agent: RemoteA2aAgent) -> Runner:
    await service.create_session(app_name=APP, user_id="u", session_id="s")
    return Runner(app_name=APP, agent=agent, session_service=service)


async def _one_turn(
    server: A2AServer, service: BaseSessionService, text: str
) -> tuple[RemoteA2aAgent, list[Event]]:
    """A new session's one turn with the remote agent: the agent and the events yielded."""
    agent = RemoteA2aAgent(name="remote", agent_card=server.card_url)
    runner = await _runner(service, agent)
    try:
        return agent, await _turn(runner, _user(text))
    finally:
        await agent.cleanup()


async def test_streamed_artifact_is_stored_whole(
    server: A2AServer, session_service: BaseSessionService
) -> None:
    agent, yielded = await _one_turn(server, session_service, "stream please")

    partials = [e for e in yielded if e.partial]
    assert [_texts(e) for e in partials] == [["Hello, "]]
    stored = await _stored(session_service)
    assert all(not e.partial for e in stored)
    answers = [e for e in stored if e.author == "remote" and e.content and e.content.parts]
    assert [_texts(e) for e in answers] == [["thinking"], ["Hello, ", "world!"]]
    assert answers[0].content.parts[0].thought is True  # type: ignore[union-attr]
    final = answers[1]
    assert final.id == partials[0].id  # the stored event replaces the streamed chunks
    metadata = final.custom_metadata or {}
    assert metadata[A2A_METADATA_PREFIX + "context_id"] == server.executor.context_ids[0]
    assert metadata[A2A_METADATA_PREFIX + "request"]["parts"][0]["text"] == "stream please"
    # a description fetched over the network is quoted as another agent's words
    assert agent.description == quote("A scripted remote agent")


async def test_a_nul_character_from_the_remote_agent_is_stored_as_a_replacement(
    server: A2AServer, session_service: BaseSessionService
) -> None:
    _, yielded = await _one_turn(server, session_service, "nul")
    stored = [_texts(e) for e in await _stored(session_service) if e.author == "remote"]
    assert [texts for texts in stored if texts] == [["bin\ufffdary"]]
    assert [_texts(e) for e in yielded if not e.partial] == stored
    # the peer's whole answer, kept in the metadata, is stored the same way
    assert "bin\ufffdary" in json.dumps(
        (await _stored(session_service))[-1].custom_metadata, ensure_ascii=False
    )


async def test_input_required_pause_and_answer(
    server: A2AServer, session_service: BaseSessionService
) -> None:
    agent = RemoteA2aAgent(name="remote", agent_card=server.card_url)
    runner = await _runner(session_service, agent)
    try:
        await _turn(runner, _user("ask"))
        paused = [e for e in await _stored(session_service) if e.long_running_tool_ids]
        assert len(paused) == 1
        call = paused[0].content.parts[0].function_call  # type: ignore[union-attr,index]
        assert call is not None
        assert call.name == "mock_function_call_for_required_user_input"
        assert call.args == {"input_required": "What is your name?"}
        await _turn(runner, _answer(call.id or "", "Bob"))
        # A later plain turn goes to the same remote context.
        await _turn(runner, _user("again"))
    finally:
        await agent.cleanup()

    assert server.executor.received == ["ask", "Bob", "again"]
    assert len(set(server.executor.context_ids)) == 1
    stored = await _stored(session_service)
    texts = [t for e in stored if e.author == "remote" for t in _texts(e)]
    assert texts[-2:] == ["Hi Bob", "echo: again"]
    assert all(not e.partial for e in stored)


async def test_stream_cut_mid_artifact_stores_what_came_and_an_error(
    server: A2AServer, session_service: BaseSessionService
) -> None:
    await _one_turn(server, session_service, "cut")

    remote = [e for e in await _stored(session_service) if e.author == "remote"]
    assert ["half"] in [_texts(e) for e in remote]
    assert remote[-1].error_message is not None
    assert "terminal state" in remote[-1].error_message


async def test_card_from_file(
    server: A2AServer, session_service: BaseSessionService, tmp_path: Path
) -> None:
    card_file = tmp_path / "card.json"
    card = {
        "name": "scripted",
        "description": "from a file",
        "version": "1.0",
        "supportedInterfaces": [
            {"url": f"{server.base_url}/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
    }
    await asyncio.to_thread(card_file.write_text, json.dumps(card))
    agent = RemoteA2aAgent(name="remote", agent_card=str(card_file))
    runner = await _runner(session_service, agent)
    try:
        await _turn(runner, _user("hi"))
    finally:
        await agent.cleanup()
    texts = [t for e in await _stored(session_service) for t in _texts(e)]
    assert texts == ["hi", "echo: hi"]
    assert agent.description == "from a file"  # the application's own file: taken as it is


async def test_unreachable_card_stores_one_error_event(session_service: BaseSessionService) -> None:
    agent = RemoteA2aAgent(
        name="remote", agent_card="http://127.0.0.1:9/.well-known/agent-card.json", timeout=5
    )
    runner = await _runner(session_service, agent)
    try:
        await _turn(runner, _user("hello"))
        with pytest.raises(AgentCardResolutionError, match="Failed to resolve AgentCard"):
            await agent._ensure_resolved()
    finally:
        await agent.cleanup()

    stored = await _stored(session_service)
    assert [e.author for e in stored] == ["user", "remote"]
    assert stored[1].content is None
    assert "Failed to initialize remote A2A agent" in (stored[1].error_message or "")


async def test_card_over_plain_http_elsewhere_is_refused(
    session_service: BaseSessionService,
) -> None:
    agent = RemoteA2aAgent(name="remote", agent_card="http://example.com/agent.json")
    runner = await _runner(session_service, agent)
    with pytest.raises(AgentCardResolutionError, match="https"):
        await agent._ensure_resolved()
    await _turn(runner, _user("hello"))
    stored = await _stored(session_service)
    assert [e.author for e in stored] == ["user", "remote"]
    assert "https" in (stored[1].error_message or "")


def test_bad_card_arguments_raise() -> None:
    with pytest.raises(ValueError, match="cannot be None"):
        RemoteA2aAgent(name="remote", agent_card=None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="agent_card must be AgentCard"):
        RemoteA2aAgent(name="remote", agent_card=3)  # type: ignore[arg-type]
