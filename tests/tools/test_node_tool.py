"""Workflow nodes among an LlmAgent's tools (google-adk 2's ``tools=[workflow]``): declared
from the node, run on the model's call, state committed with the answer; on every backend."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.events import Event
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.workflow import (
    START,
    BaseNode,
    NodeContext,
    Workflow,
    WorkflowConfigurationError,
    node,
)
from adk_runtime.workflow._node_tool import NodeTool
from tests.llm.helpers import APP, USER, send, start


class Order(pydantic.BaseModel):
    item: str
    qty: int


def _quote(ran: list[Any]) -> Workflow:
    def price(node_input: Order, ctx: NodeContext) -> dict[str, Any]:
        ran.append(node_input)
        ctx.state["last_item"] = node_input.item
        return {"total": node_input.qty * 3}

    def words(node_input: dict[str, Any]) -> str:
        return f"total {node_input['total']}"

    return Workflow(name="quote", edges=[(START, price, words)], description="Quote an order.")


def _responses(events: list[Event]) -> list[types.FunctionResponse]:
    return [r for event in events for r in event.get_function_responses()]


async def test_a_workflow_tool_is_declared_from_its_first_node_and_its_run_is_committed(
    session_service: BaseSessionService,
) -> None:
    ran: list[Any] = []
    model = ScriptedModel(
        replies=[function_call("quote", {"item": "tea", "qty": 3}, id="c1"), "It is 9."]
    )
    agent = LlmAgent(name="clerk", model=model, tools=[_quote(ran)])
    assert isinstance(agent.tools[0], NodeTool)
    runner = await start(agent, session_service)
    events = await send(runner, "price of 3 teas?")

    declared = model.requests[0].config.tools[0].function_declarations[0]  # type: ignore[index,union-attr]
    assert (declared.name, declared.description) == ("quote", "Quote an order.")
    assert declared.parameters_json_schema["required"] == ["item", "qty"]
    (response,) = _responses(events)
    assert (response.id, response.response) == ("c1", {"result": "total 9"})
    assert ran == [Order(item="tea", qty=3)]
    # the run's events, committed as they came, each with the state written before it
    run = [e for e in events if e.node_info.path.startswith("clerk/quote@c1/")]
    assert [e.node_info.name for e in run if e.output is not None] == [
        "price",
        "words",
        "node_tool_call",
    ]
    assert {e.isolation_scope for e in run} == {"c1"}  # the call's: the agent never sees them
    assert next(e for e in run if e.node_info.name == "price").actions.state_delta == {
        "last_item": "tea"
    }
    session = await session_service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert session is not None
    assert session.state["last_item"] == "tea"
    assert [e.id for e in session.events if e.isolation_scope == "c1"] == [e.id for e in run]
    assert [e.content.parts[0].text for e in session.events[-1:]] == ["It is 9."]  # type: ignore[index,union-attr]
    assert [c.role for c in model.requests[1].contents] == ["user", "model", "user"]


async def test_arguments_that_do_not_fit_are_answered_and_the_node_does_not_run(
    session_service: BaseSessionService,
) -> None:
    ran: list[Any] = []
    model = ScriptedModel(replies=[function_call("quote", {"item": "tea"}), "Sorry."])
    runner = await start(LlmAgent(name="clerk", model=model, tools=[_quote(ran)]), session_service)
    (response,) = _responses(await send(runner, "tea?"))
    assert "qty" in response.response["error"]  # type: ignore[index]
    assert ran == []
    session = await session_service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert session is not None
    assert "last_item" not in session.state


async def test_function_nodes_take_their_parameters_and_a_plain_input_is_a_request(
    session_service: BaseSessionService,
) -> None:
    def add(a: int, b: int = 1) -> int:
        """Adds two numbers."""
        return a + b

    def double(node_input: int) -> int:
        return node_input * 2

    def greet(item: str, qty: int) -> str:
        return f"{qty} x {item}"

    doubler = Workflow(name="doubler", edges=[(START, double)])
    greeter = node(greet)
    greeter.input_schema = Order  # its parameters are read from the model's fields
    model = ScriptedModel(
        replies=[
            function_call("add-numbers", {"a": 2}, id="a1"),
            function_call("doubler", {"request": 21}, id="d1"),
            function_call("add-numbers", {"b": 2}, id="a2"),
            function_call("greet", {"item": "tea", "qty": "2"}, id="g1"),
            "done",
        ]
    )
    agent = LlmAgent(
        name="calc", model=model, tools=[NodeTool(node(add), name="add-numbers"), doubler, greeter]
    )
    runner = await start(agent, session_service)
    events = await send(runner, "go")

    declarations = {d.name: d for d in model.requests[0].config.tools[0].function_declarations}  # type: ignore[index,union-attr]
    assert declarations["add-numbers"].description == "Adds two numbers."
    assert declarations["add-numbers"].parameters_json_schema["required"] == ["a"]
    assert declarations["doubler"].parameters_json_schema["properties"] == {
        "request": {"type": "integer"}
    }
    answers = {r.id: r.response for r in _responses(events)}
    assert answers["a1"] == {"result": 3}
    assert answers["d1"] == {"result": 42}
    assert "missing required arguments: a" in answers["a2"]["error"]  # type: ignore[index]
    assert answers["g1"] == {"result": "2 x tea"}


class _Fails(BaseNode):
    input_schema: Any = Order

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        raise LookupError("no such item")
        yield


async def test_a_failing_node_is_the_tools_error(session_service: BaseSessionService) -> None:
    seen: list[BaseException] = []

    def on_error(
        tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> dict[str, Any]:
        seen.append(error)
        return {"error": "handled"}

    model = ScriptedModel(
        replies=[function_call("fails", {"item": "tea", "qty": 1}, id="f1"), "ok"]
    )
    agent = LlmAgent(
        name="clerk", model=model, tools=[_Fails(name="fails")], on_tool_error_callback=on_error
    )
    runner = await start(agent, session_service)
    answers = {r.id: r.response for r in _responses(await send(runner, "go"))}
    assert answers["f1"] == {"error": "handled"}
    assert [type(e).__name__ for e in seen] == ["LookupError"]  # the node's own error


def test_what_cannot_be_a_node_tool_is_refused_when_the_agent_is_built() -> None:
    with pytest.raises(WorkflowConfigurationError, match="not a LlmAgent"):
        NodeTool(LlmAgent(name="helper", model="gemini-2.5-flash"))  # type: ignore[arg-type]

    def anything(node_input):  # type: ignore[no-untyped-def]
        return node_input

    vague = Workflow(name="vague", edges=[(START, anything)])
    with pytest.raises(pydantic.ValidationError, match="Give it an input_schema"):
        LlmAgent(name="clerk", model="gemini-2.5-flash", tools=[vague])


async def test_a_call_id_the_model_gives_again_runs_the_node_again(
    session_service: BaseSessionService,
) -> None:
    """Each call's run is its own, also when the model repeats an id (some models do)."""
    ran: list[Any] = []
    model = ScriptedModel(
        replies=[
            function_call("quote", {"item": "tea", "qty": 3}, id="c1"),
            function_call("quote", {"item": "milk", "qty": 2}, id="c1"),
            "Done.",
        ]
    )
    runner = await start(LlmAgent(name="clerk", model=model, tools=[_quote(ran)]), session_service)
    events = await send(runner, "two quotes")
    assert [r.response for r in _responses(events)] == [
        {"result": "total 9"},
        {"result": "total 6"},
    ]
    assert ran == [Order(item="tea", qty=3), Order(item="milk", qty=2)]
