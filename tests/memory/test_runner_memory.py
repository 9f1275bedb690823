"""The load_memory tool over every memory store."""

from __future__ import annotations

from adk_runtime.agents import LlmAgent
from adk_runtime.memory import BaseMemoryService
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call, text_event
from adk_runtime.tools import load_memory
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
