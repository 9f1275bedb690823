"""The load_memory tool over every memory store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.memory import BaseMemoryService
from adk_runtime.memory.base import MemoryEntry
from adk_runtime.sessions import InMemorySessionService, Session
from adk_runtime.testing import ScriptedModel, function_call, text_event
from adk_runtime.tools import ToolContext, load_memory
from tests.llm.helpers import APP, USER, send, start


async def test_load_memory_finds_only_this_users_past_conversation(
    memory_service: BaseMemoryService,
) -> None:
    sessions = InMemorySessionService()
    for user, name in [(USER, "Miso"), ("someone-else", "Secret")]:
        old = await sessions.create_session(app_name=APP, user_id=user, session_id="old")
        await sessions.append_event(old, text_event(f"my cat is called {name}", role="user"))
        await sessions.append_event(old, text_event("the weather is nice", role="user"))
        await memory_service.add_session_to_memory(old)
    model = ScriptedModel(replies=[function_call("load_memory", {"query": "cat's name?"}), "Miso"])
    agent = LlmAgent(name="a", model=model, tools=[load_memory])
    runner = await start(agent, sessions, memory_service=memory_service)
    events = await send(runner, "what is my cat called?")
    response = events[1].get_function_responses()[0].response
    assert response is not None
    found = [m["content"]["parts"][0]["text"] for m in response["memories"]]
    assert found == ["my cat is called Miso"]


async def test_a_tool_remembers_events_and_entries_through_its_context(
    memory_service: BaseMemoryService,
) -> None:
    async def remember(fact: str, tool_context: ToolContext) -> str:
        """Remember a fact."""
        event = text_event(fact, role="user")
        await tool_context.add_events_to_memory(events=[event], custom_metadata={"ttl": "1d"})
        return "noted"

    model = ScriptedModel(replies=[function_call("remember", {"fact": "my dog is Rex"}), "ok"])
    runner = await start(
        LlmAgent(name="a", model=model, tools=[remember]),
        InMemorySessionService(),
        memory_service=memory_service,
    )
    await send(runner, "remember my dog")
    found = await memory_service.search_memory(app_name=APP, user_id=USER, query="dog")
    assert [m.content.parts[0].text for m in found.memories if m.content.parts] == ["my dog is Rex"]


class EntryMemory(BaseMemoryService):
    """A memory service that takes entries directly (ours remember events only)."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, str, MemoryEntry, object]] = []

    async def add_session_to_memory(self, session: Session) -> None:
        raise NotImplementedError

    async def add_memory(
        self,
        *,
        app_name: str,
        user_id: str,
        memories: Sequence[MemoryEntry],
        custom_metadata: Mapping[str, object] | None = None,
    ) -> None:
        self.entries += [(app_name, user_id, m, custom_metadata) for m in memories]

    async def search_memory(self, *, app_name: str, user_id: str, query: str) -> Any:
        raise NotImplementedError


async def test_add_memory_goes_to_the_service_under_this_user() -> None:
    entry = MemoryEntry(content=types.Content(parts=[types.Part(text="likes tea")]))

    async def note(tool_context: ToolContext) -> str:
        """Note a preference."""
        await tool_context.add_memory(memories=[entry], custom_metadata={"ttl": "6000s"})
        return "noted"

    service = EntryMemory()
    model = ScriptedModel(replies=[function_call("note", {}), "ok"])
    runner = await start(
        LlmAgent(name="a", model=model, tools=[note]),
        InMemorySessionService(),
        memory_service=service,
    )
    await send(runner, "note it")
    assert service.entries == [(APP, USER, entry, {"ttl": "6000s"})]
