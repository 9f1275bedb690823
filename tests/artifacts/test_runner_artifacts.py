"""A tool saving artifacts through the Runner, on every artifact store."""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.artifacts import BaseArtifactService
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext
from tests.llm.helpers import APP, USER, send, start, stored

PIXELS = bytes(range(256)) * 4


async def draw(title: str, tool_context: ToolContext) -> dict[str, Any]:
    """Draw a picture and keep it."""
    image = types.Part(inline_data=types.Blob(data=PIXELS, mime_type="image/png"))
    version = await tool_context.save_artifact("picture.png", image)
    caption = await tool_context.save_artifact("user:caption.txt", types.Part(text=title))
    return {"version": version, "caption": caption}


async def test_tool_saves_are_committed_on_the_function_response_event(
    artifact_service: BaseArtifactService,
) -> None:
    sessions = InMemorySessionService()
    model = ScriptedModel(
        replies=[
            function_call("draw", {"title": "sunset"}),
            function_call("draw", {"title": "x"}),
            "done",
        ]
    )
    agent = LlmAgent(name="painter", model=model, tools=[draw])
    runner = await start(agent, sessions, artifact_service=artifact_service)
    events = await send(runner, "draw twice")
    deltas = [e.actions.artifact_delta for e in events if e.get_function_responses()]
    assert deltas == [
        {"picture.png": 0, "user:caption.txt": 0},
        {"picture.png": 1, "user:caption.txt": 1},
    ]
    session = await stored(runner)
    assert [e.actions.artifact_delta for e in session.events if e.actions.artifact_delta] == deltas
    where = {"app_name": APP, "user_id": USER, "session_id": "s1"}
    picture = await artifact_service.load_artifact(filename="picture.png", version=0, **where)
    assert picture is not None
    assert picture.inline_data is not None
    assert (picture.inline_data.data, picture.inline_data.mime_type) == (PIXELS, "image/png")
    caption = await artifact_service.load_artifact(
        app_name=APP, user_id=USER, filename="user:caption.txt", version=0
    )
    assert caption is not None
    assert caption.text == "sunset"
