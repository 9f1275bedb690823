"""state_schema: an agent declares its session-state keys and types; bad writes are refused."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from adk_runtime.agents import LlmAgent
from adk_runtime.sessions import BaseSessionService, InMemorySessionService, State, StateSchemaError
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext
from tests.llm.helpers import send, start, stored


class Cart(pydantic.BaseModel):
    items: list[str] = []
    total: float = pydantic.Field(default=0, ge=0)


def add_item(item: str, price: float, tool_context: ToolContext) -> dict[str, Any]:
    """Put an item in the cart."""
    state = tool_context.state
    state["items"] = [*state.get("items", []), item]
    state["total"] = state.get("total", 0) + price
    state["user:last_item"] = item  # scoped keys are not checked
    return {"ok": True}


def scribble(tool_context: ToolContext) -> dict[str, Any]:
    """Write a key the schema does not declare."""
    tool_context.state["notes"] = "secret-value-123"
    return {"ok": True}


async def test_declared_writes_are_stored_and_others_refused_with_nothing_written(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(
        replies=[
            function_call("add_item", {"item": "tea", "price": 3.5}),
            function_call("add_item", {"item": "refund", "price": -10}),
            function_call("scribble", {}),
            "done",
        ]
    )
    agent = LlmAgent(name="shop", model=model, tools=[add_item, scribble], state_schema=Cart)
    runner = await start(agent, session_service)
    events = await send(runner, "shop")
    responses = [r.response for e in events for r in e.get_function_responses()]
    assert responses[0] == {"ok": True}
    assert "total" in str(responses[1])
    assert "greater than or equal to 0" in str(responses[1])
    assert "'notes' is not declared in Cart" in str(responses[2])
    assert "secret-value-123" not in str(responses[2])  # the value never goes into the message
    state = (await stored(runner)).state
    assert state["items"] == ["tea"]
    assert state["total"] == 3.5  # the refused call wrote nothing: its items write is undone
    assert state["user:last_item"] == "tea"
    assert "notes" not in state


async def test_a_sub_agent_inherits_the_schema_unless_it_declares_its_own() -> None:
    class Other(pydantic.BaseModel):
        notes: str = ""

    inner = LlmAgent(name="inner", model=ScriptedModel(replies=[]))
    free = LlmAgent(name="free", model=ScriptedModel(replies=[]), state_schema=Other)
    root = LlmAgent(
        name="root", model=ScriptedModel(replies=[]), sub_agents=[inner, free], state_schema=Cart
    )
    assert inner.effective_state_schema() is Cart
    assert free.effective_state_schema() is Other
    assert LlmAgent(name="x", model=ScriptedModel(replies=[])).effective_state_schema() is None
    assert root.effective_state_schema() is Cart


async def test_callbacks_are_checked_too() -> None:
    def before(callback_context: Any) -> None:
        callback_context.state["total"] = "lots"

    agent = LlmAgent(
        name="shop", model=ScriptedModel(replies=["hi"]), state_schema=Cart,
        before_agent_callback=before,
    )  # fmt: skip
    runner = await start(agent, InMemorySessionService())
    with pytest.raises(StateSchemaError, match=r"'total' does not fit Cart\.total"):
        await send(runner, "hello")


def test_the_state_view_checks_assignments_and_updates_whole() -> None:
    value: dict[str, Any] = {}
    delta: dict[str, Any] = {}
    state = State(value, delta, schema=Cart)
    state["items"] = ["a"]
    with pytest.raises(StateSchemaError):
        state.update({"total": 1.0, "items": "not a list"})
    assert delta == {"items": ["a"]}  # the refused update wrote none of its keys
    state["temp:anything"] = object()
    assert isinstance(StateSchemaError("x"), TypeError)


async def test_a_tool_runs_on_a_test_double_context_without_an_agent() -> None:
    # what tool unit tests often do (google-adk's own among them): a context on a spec'd Mock
    from unittest import mock

    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.sessions import Session
    from adk_runtime.tools import FunctionTool

    invocation = mock.MagicMock(spec=InvocationContext)
    invocation.session = Session(id="s", app_name="a", user_id="u", state={"items": ["x"]})
    context = ToolContext(invocation)
    result = await FunctionTool(add_item).run_async(
        args={"item": "pen", "price": 2.5}, tool_context=context
    )
    assert result == {"ok": True}
    assert context.state["items"] == ["x", "pen"]
    assert context.actions.state_delta["total"] == 2.5
