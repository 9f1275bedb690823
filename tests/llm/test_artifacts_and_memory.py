"""Artifacts and memory from tools and callbacks; load_memory and preload_memory."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import CallbackContext, LlmAgent
from adk_runtime.artifacts.memory import InMemoryArtifactService
from adk_runtime.errors import ServiceNotConfiguredError
from adk_runtime.memory.base import MemoryEntry
from adk_runtime.memory.in_memory import InMemoryMemoryService
from adk_runtime.models import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext, load_memory, preload_memory
from tests.llm.helpers import APP, USER, send, start, stored


async def save_report(text: str, tool_context: ToolContext) -> dict[str, Any]:
    """Save a report."""
    first = await tool_context.save_artifact("report.txt", types.Part(text=text))
    second = await tool_context.save_artifact(
        "report.txt", types.Part(text=text + "!"), custom_metadata={"quarter": text}
    )
    names = await tool_context.list_artifacts()
    loaded = await tool_context.load_artifact("report.txt", version=first)
    latest = await tool_context.get_artifact_version("report.txt")
    assert latest is not None
    assert (latest.version, latest.custom_metadata) == (second, {"quarter": text})
    assert await tool_context.get_artifact_version("missing.txt") is None
    return {"versions": [first, second], "names": names, "first": loaded.text if loaded else None}


async def test_tool_artifact_delta_is_committed(session_service: BaseSessionService) -> None:
    artifacts = InMemoryArtifactService()
    model = ScriptedModel(replies=[function_call("save_report", {"text": "q3"}), "saved"])
    runner = await start(
        LlmAgent(name="a", model=model, tools=[save_report]),
        session_service,
        artifact_service=artifacts,
    )
    events = await send(runner, "save it")
    response_event = events[1]
    assert response_event.get_function_responses()[0].response == {
        "versions": [0, 1],
        "names": ["report.txt"],
        "first": "q3",
    }
    assert response_event.actions.artifact_delta == {"report.txt": 1}
    session = await stored(runner)
    stored_event = next(e for e in session.events if e.id == response_event.id)
    assert stored_event.actions.artifact_delta == {"report.txt": 1}
    part = await artifacts.load_artifact(
        app_name=APP, user_id=USER, session_id="s1", filename="report.txt", version=1
    )
    assert part is not None
    assert part.text == "q3!"


async def test_callback_saves_artifact_on_model_event(session_service: BaseSessionService) -> None:
    async def keep(callback_context: CallbackContext, llm_response: Any) -> None:
        await callback_context.save_artifact("user:last.txt", types.Part(text="kept"))

    runner = await start(
        LlmAgent(name="a", model=ScriptedModel(replies=["hi"]), after_model_callback=keep),
        session_service,
    )
    events = await send(runner, "hello")
    assert events[0].actions.artifact_delta == {"user:last.txt": 0}


async def test_artifacts_need_a_service(session_service: BaseSessionService) -> None:
    async def keep(callback_context: CallbackContext, llm_response: Any) -> None:
        await callback_context.save_artifact("x.txt", types.Part(text="x"))

    agent = LlmAgent(name="a", model=ScriptedModel(replies=["hi"]), after_model_callback=keep)
    runner = Runner(app_name=APP, agent=agent, session_service=session_service)
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
    with pytest.raises(ServiceNotConfiguredError, match="Artifact service is not initialized"):
        await send(runner, "hello")


async def test_memory_and_credentials_need_a_service(session_service: BaseSessionService) -> None:
    """Each call names what it could not do; the error is a ValueError, as in google-adk."""
    from fastapi.openapi.models import APIKey

    from adk_runtime.auth import AuthConfig

    caught: dict[str, BaseException] = {}
    auth = AuthConfig(auth_scheme=APIKey.model_validate({"in": "header", "name": "X-Key"}))

    async def probe(callback_context: CallbackContext, llm_response: Any) -> None:
        calls = {
            "search": callback_context.search_memory("x"),
            "session": callback_context.add_session_to_memory(),
            "events": callback_context.add_events_to_memory(events=[]),
            "entries": callback_context.add_memory(memories=[]),
            "delete": callback_context.delete_memory("m1"),
            "credential": callback_context.load_credential(auth),
        }
        for name, call in calls.items():
            with pytest.raises(ServiceNotConfiguredError) as info:
                await call
            caught[name] = info.value

    agent = LlmAgent(name="a", model=ScriptedModel(replies=["hi"]), after_model_callback=probe)
    runner = Runner(app_name=APP, agent=agent, session_service=session_service)
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
    await send(runner, "hello")
    messages = {name: str(exc) for name, exc in caught.items()}
    assert messages["search"].startswith("Memory service is not available.")
    assert messages["session"].startswith("Cannot add session to memory: memory service is not")
    assert messages["events"].startswith("Cannot add events to memory: memory service is not")
    assert messages["entries"].startswith("Cannot add memory: memory service is not available.")
    assert messages["delete"].startswith("Cannot delete memory: memory service is not available")
    assert messages["credential"].startswith("Credential service is not initialized")
    assert all(isinstance(exc, ValueError) for exc in caught.values())


class _RecordingMemory(InMemoryMemoryService):
    """Records direct writes and deletions (the in-memory store remembers events only)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, str, str, object]] = []

    async def add_memory(self, *, app_name: str, user_id: str, memories: Any, **kw: Any) -> None:
        self.calls.append(("add", app_name, user_id, kw.get("custom_metadata")))

    async def delete_memory(
        self, *, app_name: str, user_id: str, memory_id: str | None = None
    ) -> None:
        self.calls.append(("delete", app_name, user_id, memory_id))


async def test_memory_writes_are_scoped_by_the_session(session_service: BaseSessionService) -> None:
    """add_memory goes under the session's app and user; branch and invocation context read."""
    memory = _RecordingMemory()
    seen: list[object] = []

    async def remember(callback_context: CallbackContext, llm_response: Any) -> None:
        seen.append(callback_context.branch)
        seen.append(callback_context.get_invocation_context().session is callback_context.session)
        entry = MemoryEntry(content=types.Content(parts=[types.Part(text="fact")]))
        await callback_context.add_memory(memories=[entry], custom_metadata={"ttl": "1d"})
        await callback_context.delete_memory("m1")

    agent = LlmAgent(name="a", model=ScriptedModel(replies=["hi"]), after_model_callback=remember)
    runner = await start(agent, session_service, memory_service=memory)
    await send(runner, "hello")
    assert seen == [None, True]
    assert memory.calls == [("add", APP, USER, {"ttl": "1d"}), ("delete", APP, USER, "m1")]


async def _remember(memory: InMemoryMemoryService, service: BaseSessionService) -> None:
    old = await service.create_session(app_name=APP, user_id=USER, session_id="old")
    other = await service.create_session(app_name=APP, user_id="someone-else", session_id="old")
    from adk_runtime.testing import text_event

    await service.append_event(old, text_event("my cat is called Miso", role="user"))
    await service.append_event(other, text_event("my cat is called Secret", role="user"))
    await memory.add_session_to_memory(old)
    await memory.add_session_to_memory(other)


async def test_load_memory_tool(session_service: BaseSessionService) -> None:
    memory = InMemoryMemoryService()
    await _remember(memory, session_service)
    model = ScriptedModel(replies=[function_call("load_memory", {"query": "cat name"}), "Miso"])
    runner = await start(
        LlmAgent(name="a", model=model, tools=[load_memory]),
        session_service,
        memory_service=memory,
    )
    events = await send(runner, "what is my cat called?")
    response = events[1].get_function_responses()[0].response
    assert response is not None
    found = [m["content"]["parts"][0]["text"] for m in response["memories"]]
    assert found == ["my cat is called Miso"]
    assert "load_memory" in str(model.requests[0].config.system_instruction)


async def test_preload_memory_tool(session_service: BaseSessionService) -> None:
    memory = InMemoryMemoryService()
    await _remember(memory, session_service)
    model = ScriptedModel(replies=["Miso", "no idea"])
    runner = await start(
        LlmAgent(name="a", model=model, tools=[preload_memory], instruction="Be kind."),
        session_service,
        memory_service=memory,
    )
    await send(runner, "what is my cat called?")
    request: LlmRequest = model.requests[0]
    system = str(request.config.system_instruction)
    assert system.startswith("Be kind.")
    assert "my cat is called Miso" in system
    assert "Secret" not in system
    assert request.config.tools is None  # nothing declared to the model
    await send(runner, "zzz qqq")
    assert "PAST_CONVERSATIONS" not in str(model.requests[1].config.system_instruction)


async def test_callback_adds_session_to_memory(session_service: BaseSessionService) -> None:
    memory = InMemoryMemoryService()

    async def remember(callback_context: CallbackContext) -> None:
        await callback_context.add_session_to_memory()

    agent = LlmAgent(
        name="a", model=ScriptedModel(replies=["noted"]), after_agent_callback=remember
    )
    runner = await start(agent, session_service, memory_service=memory)
    await send(runner, "my dog is Rex")
    found = await memory.search_memory(app_name=APP, user_id=USER, query="dog")
    assert [m.content.parts[0].text for m in found.memories] == ["my dog is Rex"]  # type: ignore[index]
