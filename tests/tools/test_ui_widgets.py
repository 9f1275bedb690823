"""UI widgets: a tool asks the client to render one; it is committed with the step's event."""

from __future__ import annotations

from typing import Any

import pytest

from adk_runtime.agents import LlmAgent
from adk_runtime.events import Event, EventActions
from adk_runtime.events.ui_widget import UiWidget
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext
from tests.llm.helpers import send, start, stored


def chart(city: str, tool_context: ToolContext) -> dict[str, Any]:
    """Show a weather chart for a city."""
    tool_context.render_ui_widget(
        UiWidget(
            id=f"chart-{city}",
            provider="mcp",
            payload={"resource_uri": "ui://weather/chart", "tool_args": {"city": city}},
        )
    )
    return {"shown": city}


def twice(tool_context: ToolContext) -> dict[str, Any]:
    """Render the same widget twice (a mistake)."""
    widget = UiWidget(id="same", provider="mcp")
    tool_context.render_ui_widget(widget)
    tool_context.render_ui_widget(widget)
    return {"shown": True}


async def test_widgets_of_parallel_calls_are_committed_with_their_event(
    session_service: BaseSessionService,
) -> None:
    calls = [function_call("chart", {"city": c}, id=f"c-{c}") for c in ("Oslo", "Rome")]
    model = ScriptedModel(replies=[calls, "Here are the charts."])
    runner = await start(LlmAgent(name="wx", model=model, tools=[chart]), session_service)
    events = await send(runner, "charts please")
    (response,) = [e for e in events if e.get_function_responses()]
    widgets = response.actions.render_ui_widgets or []
    assert sorted(w.id for w in widgets) == ["chart-Oslo", "chart-Rome"]
    session = await stored(runner)
    (read_back,) = [e for e in session.events if e.get_function_responses()]
    assert read_back.actions.render_ui_widgets is not None
    assert {w.id: w.payload for w in read_back.actions.render_ui_widgets} == {
        "chart-Oslo": {"resource_uri": "ui://weather/chart", "tool_args": {"city": "Oslo"}},
        "chart-Rome": {"resource_uri": "ui://weather/chart", "tool_args": {"city": "Rome"}},
    }
    stored_json = read_back.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert stored_json["actions"]["renderUiWidgets"][0]["provider"] == "mcp"


async def test_a_widget_id_used_twice_in_one_step_is_an_error_the_model_sees(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=[function_call("twice", {}, id="t1"), "sorry"])
    runner = await start(LlmAgent(name="wx", model=model, tools=[twice]), session_service)
    events = await send(runner, "go")
    (response,) = [e for e in events if e.get_function_responses()]
    answer = response.get_function_responses()[0].response or {}
    assert "ValueError" in answer["error"]
    assert "'same'" in answer["error"]
    assert response.actions.render_ui_widgets is None  # the failed call's writes are dropped


def test_a_widget_payload_that_cannot_be_stored_names_its_path() -> None:
    from adk_runtime.errors import SerializationError
    from adk_runtime.events import event_to_json

    event = Event(
        author="a",
        actions=EventActions(
            render_ui_widgets=[UiWidget(id="w", provider="mcp", payload={"x": object()})]
        ),
    )
    with pytest.raises(SerializationError, match="render_ui_widgets"):
        event_to_json(event)
