"""The pieces added at google-adk's module paths behave as the names promise."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.genai import types

from adk_runtime.agents import Context, LlmAgent
from adk_runtime.artifacts.base_artifact_service import ensure_part
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.errors import InputValidationError
from adk_runtime.events.event import Event
from adk_runtime.flows.llm_flows.functions import (
    AF_FUNCTION_CALL_ID_PREFIX,
    generate_client_function_call_id,
    get_long_running_function_calls,
    populate_client_function_call_id,
    remove_client_function_call_id,
)
from adk_runtime.memory import DatabaseMemoryService, SqliteMemoryService
from adk_runtime.memory.in_memory_memory_service import InMemoryMemoryService
from adk_runtime.models.base_llm_connection import BaseLlmConnection
from adk_runtime.sessions.database_session_service import DatabaseSessionService
from adk_runtime.sessions.in_memory_session_service import InMemorySessionService
from adk_runtime.sessions.sqlite_session_service import SqliteSessionService
from adk_runtime.testing import text_event
from adk_runtime.tools import FunctionTool, LongRunningFunctionTool, ToolContext
from adk_runtime.tools.load_memory_tool import LoadMemoryResponse, load_memory
from adk_runtime.tools.transfer_to_agent_tool import transfer_to_agent


async def test_sqlite_session_service_is_the_database_service_on_a_file(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    async with SqliteSessionService(str(path)) as service:
        session = await service.create_session(app_name="a", user_id="u", state={"k": 1})
        await service.append_event(session, text_event("hi", state_delta={"k": 2}))
    async with DatabaseSessionService(f"sqlite+aiosqlite:///{path}") as same:
        loaded = await same.get_session(app_name="a", user_id="u", session_id=session.id)
    assert loaded is not None
    assert loaded.state == {"k": 2}
    assert [e.content.parts[0].text for e in loaded.events if e.content and e.content.parts] == [
        "hi"
    ]


def test_ensure_part_accepts_parts_and_dicts_only() -> None:
    part = types.Part.from_text(text="x")
    assert ensure_part(part) is part
    assert ensure_part({"inlineData": {"data": b"ab", "mimeType": "text/plain"}}).inline_data
    with pytest.raises(InputValidationError):
        ensure_part({"text": 3})


def _call_event(*calls: types.FunctionCall) -> Event:
    parts = [types.Part(function_call=call) for call in calls]
    return Event(author="agent", content=types.Content(role="model", parts=parts))


def test_client_function_call_ids_are_minted_and_removed() -> None:
    assert generate_client_function_call_id().startswith(AF_FUNCTION_CALL_ID_PREFIX)
    event = _call_event(
        types.FunctionCall(name="f", args={}), types.FunctionCall(id="model-1", name="g", args={})
    )
    populate_client_function_call_id(event)
    minted, kept = event.get_function_calls()
    assert minted.id is not None
    assert minted.id.startswith(AF_FUNCTION_CALL_ID_PREFIX)
    assert kept.id == "model-1"
    response = types.Part(
        function_response=types.FunctionResponse(id=minted.id, name="f", response={})
    )
    assert event.content is not None
    event.content.parts = [*(event.content.parts or []), response]
    remove_client_function_call_id(event.content)
    assert [call.id for call in event.get_function_calls()] == [None, "model-1"]
    assert response.function_response is not None
    assert response.function_response.id is None
    remove_client_function_call_id(None)  # nothing to do


def test_long_running_calls_are_found_by_tool() -> None:
    def wait(job: str) -> None:
        """Wait for a job."""

    def now() -> str:
        """The time."""
        return "noon"

    tools = {"wait": LongRunningFunctionTool(wait), "now": FunctionTool(now)}
    calls = [
        types.FunctionCall(id="1", name="wait", args={}),
        types.FunctionCall(id="2", name="now", args={}),
        types.FunctionCall(id="3", name="unknown", args={}),
    ]
    assert get_long_running_function_calls(calls, tools) == {"1"}


async def _tool_context() -> ToolContext:
    service = InMemorySessionService()
    session = await service.create_session(app_name="a", user_id="u")
    ctx = InvocationContext(
        invocation_id="e-1",
        session=session,
        agent=LlmAgent(name="root", model="m"),
        session_service=service,
        memory_service=InMemoryMemoryService(),
    )
    return Context(ctx, function_call_id="c-1")


async def test_context_is_the_tool_context() -> None:
    context = await _tool_context()
    assert isinstance(context, ToolContext)
    transfer_to_agent("billing", context)
    assert context.actions.transfer_to_agent == "billing"


async def test_load_memory_answers_in_its_response_model() -> None:
    context = await _tool_context()
    result = await load_memory("anything", context)
    assert LoadMemoryResponse.model_validate(result).memories == []


def test_base_llm_connection_is_an_interface() -> None:
    with pytest.raises(TypeError):
        BaseLlmConnection()  # type: ignore[abstract]


async def test_sqlite_memory_service_is_the_database_service_on_a_file(tmp_path: Path) -> None:
    path = tmp_path / "memory.db"
    sessions = InMemorySessionService()
    session = await sessions.create_session(app_name="a", user_id="u")
    await sessions.append_event(session, text_event("my cat is called Miso", role="user"))
    memory = SqliteMemoryService(path, max_results=5)
    try:
        await memory.add_session_to_memory(session)
    finally:
        await memory.close()
    same = DatabaseMemoryService(f"sqlite+aiosqlite:///{path}")
    try:
        found = await same.search_memory(app_name="a", user_id="u", query="cat")
    finally:
        await same.close()
    assert [m.content.parts[0].text for m in found.memories if m.content.parts] == [
        "my cat is called Miso"
    ]


def test_the_package_offers_google_adks_top_level_names_imported_on_first_use() -> None:
    """``from google.adk import Agent, Event`` ports as ``from adk_runtime import ...``;
    ``import adk_runtime`` alone still imports none of them."""
    import subprocess
    import sys

    script = (
        "import sys, adk_runtime\n"
        "assert 'adk_runtime.runners' not in sys.modules\n"
        "from adk_runtime import Agent, Context, Event, Runner, Workflow\n"
        "from adk_runtime.agents.llm_agent import LlmAgent\n"
        "from adk_runtime.events.event import Event as E\n"
        "assert Agent is LlmAgent and Event is E\n"
        "assert {'Agent', 'Workflow'} <= set(dir(adk_runtime))\n"
        "try:\n"
        "    adk_runtime.Nothing\n"
        "except AttributeError as error:\n"
        "    assert 'Nothing' in str(error)\n"
        "else:\n"
        "    raise SystemExit('no AttributeError')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
