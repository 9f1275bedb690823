"""MultimodalToolResultsPlugin: parts a tool returns are in the model's next request."""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.models import LlmRequest
from adk_runtime.plugins.multimodal_tool_results_plugin import (
    PARTS_RETURNED_BY_TOOLS_ID,
    SESSION_PARTS_RETURNED_BY_TOOLS_ID,
    MultimodalToolResultsPlugin,
)
from adk_runtime.runners import InMemoryRunner
from adk_runtime.sessions import Session
from adk_runtime.testing import ScriptedModel, function_call

CAPTION = types.Part(text="A red square.")
IMAGE = types.Part(inline_data=types.Blob(data=b"\x89PNG-red", mime_type="image/png"))
FILE = types.Part(file_data=types.FileData(file_uri="gs://b/red.png", mime_type="image/png"))


def draw() -> list[types.Part]:
    """Draw a picture."""
    return [CAPTION, IMAGE, FILE]


async def _run(
    plugin: MultimodalToolResultsPlugin, *messages: str, **agent: Any
) -> tuple[ScriptedModel, Session]:
    replies = [function_call("draw"), "Here it is.", "Still red.", "Yes."]
    model = ScriptedModel(replies=replies)
    root = LlmAgent(name="agent", model=model, tools=[draw], **agent)
    runner = InMemoryRunner(app=App(name="app", root_agent=root, plugins=[plugin]))
    await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
    for text in messages:
        message = types.Content(role="user", parts=[types.Part(text=text)])
        async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
            pass
    session = await runner.session_service.get_session(app_name="app", user_id="u", session_id="s")
    assert session is not None
    return model, session


def _added(request: LlmRequest) -> list[types.Part]:
    """The parts after the function response (or the user's text) in the last content."""
    parts = request.contents[-1].parts or []
    return [p for p in parts if p.function_response is None and p.text not in ("draw!", "more")]


async def test_returned_parts_reach_the_next_request_once() -> None:
    model, session = await _run(MultimodalToolResultsPlugin(), "draw!", "more")
    first, after_tool, next_turn = model.requests
    assert _added(first) == []
    last = after_tool.contents[-1]
    assert last.parts is not None
    assert last.parts[0].function_response is not None
    # the media travel in the function response itself (as the image, not its JSON); the
    # plugin adds only what a function response cannot carry, so no bytes are sent twice
    carried = last.parts[0].function_response.parts or []
    assert [(p.inline_data, p.file_data) for p in carried] == [
        (types.FunctionResponseBlob(data=b"\x89PNG-red", mime_type="image/png"), None),
        (None, types.FunctionResponseFileData(file_uri="gs://b/red.png", mime_type="image/png")),
    ]
    assert _added(after_tool) == [CAPTION]
    assert _added(next_turn) == []  # next_model_call: once
    # the text part was added to the request only: the stored event holds the response
    [response_event] = [e for e in session.events if e.get_function_responses()]
    assert response_event.content is not None
    assert len(response_event.content.parts or []) == 1
    assert PARTS_RETURNED_BY_TOOLS_ID not in session.state  # temp: never stored


async def test_session_retention_keeps_all_but_bytes_for_later_requests() -> None:
    plugin = MultimodalToolResultsPlugin(retention="session")
    model, session = await _run(plugin, "draw!", "more")
    _, after_tool, next_turn = model.requests
    assert _added(after_tool) == [CAPTION, IMAGE, FILE]
    assert _added(next_turn) == [CAPTION, FILE]  # inline bytes go to one request only
    kept = session.state[SESSION_PARTS_RETURNED_BY_TOOLS_ID]
    assert [types.Part.model_validate(p) for p in kept] == [CAPTION, FILE]


async def test_other_results_are_left_alone_and_the_agents_callback_still_runs() -> None:
    seen: list[dict[str, Any]] = []

    def after_tool(tool: Any, args: Any, tool_context: Any, tool_response: Any) -> None:
        seen.append(tool_response)

    def lookup() -> dict[str, str]:
        """Look up."""
        return {"weather": "sunny"}

    model = ScriptedModel(replies=[function_call("lookup"), "Sunny."])
    root = LlmAgent(name="agent", model=model, tools=[lookup], after_tool_callback=after_tool)
    plugin = MultimodalToolResultsPlugin()
    runner = InMemoryRunner(app=App(name="app", root_agent=root, plugins=[plugin]))
    await runner.session_service.create_session(app_name="app", user_id="u", session_id="s")
    message = types.Content(role="user", parts=[types.Part(text="weather?")])
    async for _ in runner.run_async(user_id="u", session_id="s", new_message=message):
        pass
    assert seen == [{"weather": "sunny"}]  # google-adk's plugin would have skipped it
    assert len(model.requests[1].contents[-1].parts or []) == 1


def test_retention_is_checked() -> None:
    with pytest.raises(ValueError, match="retention"):
        MultimodalToolResultsPlugin(retention="forever")  # type: ignore[arg-type]
