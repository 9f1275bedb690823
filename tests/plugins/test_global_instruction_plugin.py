"""GlobalInstructionPlugin: the App's instruction leads every agent's system instruction."""

from __future__ import annotations

from google.genai import types

from adk_runtime.agents import LlmAgent, ReadonlyContext
from adk_runtime.apps import App
from adk_runtime.models import LlmRequest
from adk_runtime.plugins.global_instruction_plugin import GlobalInstructionPlugin, _lead
from adk_runtime.runners import InMemoryRunner
from adk_runtime.testing import ScriptedModel


async def _request(plugin: GlobalInstructionPlugin, instruction: str) -> LlmRequest:
    model = ScriptedModel(replies=["ok"])
    agent = LlmAgent(name="a", model=model, instruction=instruction)
    runner = InMemoryRunner(app=App(name="shop", root_agent=agent, plugins=[plugin]))
    await runner.session_service.create_session(
        app_name="shop", user_id="u", session_id="s", state={"user:name": "Ada"}
    )
    message = types.Content(role="user", parts=[types.Part(text="hi")])
    async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
        pass
    [request] = model.requests
    return request


async def test_a_string_with_placeholders_leads_the_agents_instruction() -> None:
    request = await _request(GlobalInstructionPlugin("Greet {user:name}."), "Sell pens.")
    assert request.config.system_instruction == "Greet Ada.\n\nSell pens."


async def test_a_function_gives_the_text() -> None:
    async def provider(context: ReadonlyContext) -> str:
        return f"Session {context.session.id}."

    request = await _request(GlobalInstructionPlugin(provider), "Sell pens.")
    assert request.config.system_instruction == "Session s.\n\nSell pens."


async def test_an_empty_instruction_changes_nothing() -> None:
    request = await _request(GlobalInstructionPlugin(""), "Sell pens.")
    assert request.config.system_instruction == "Sell pens."


def test_the_shape_of_the_existing_instruction_is_kept() -> None:
    assert _lead("G.", None) == "G."
    assert _lead("G.", ["a", "b"]) == ["G.", "a", "b"]
    content = _lead("G.", types.Content(parts=[types.Part(text="a")]))
    assert isinstance(content, types.Content)
    assert [part.text for part in content.parts or []] == ["G.", "a"]
