"""``set_model_response``: what ``run_async`` returns, and which calls end the turn."""

from __future__ import annotations

import inspect
from typing import Any

import pydantic
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import BaseTool, ToolContext
from adk_runtime.tools.set_model_response_tool import SetModelResponseTool
from tests.llm.helpers import send, start, stored, texts


class Item(pydantic.BaseModel):
    id: int
    note: str | None = None


def lookup(city: str) -> dict[str, Any]:
    """Look up a city."""
    return {"city": city}


RAW_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"result": {"type": "string"}}}


def test_func_mirrors_the_answer_shape() -> None:
    model_sig = inspect.signature(SetModelResponseTool(Item).func)
    assert list(model_sig.parameters) == ["id", "note"]
    assert model_sig.parameters["id"].default is inspect.Parameter.empty
    assert model_sig.parameters["note"].default is None
    listed = SetModelResponseTool(list[Item])
    assert listed._is_list_of_basemodel
    assert not listed._is_basemodel
    assert inspect.signature(listed.func).parameters["items"].annotation == list[Item]
    raw = inspect.signature(SetModelResponseTool(RAW_SCHEMA).func)
    assert raw.parameters["response"].annotation is dict


async def test_a_raw_schema_answer_shaped_like_a_wrapped_value_is_kept_whole(
    session_service: BaseSessionService,
) -> None:
    # The answer {"result": "hi"} is a dict: it is the function response as it is, and the
    # final text is that dict, not its "result" member.
    model = ScriptedModel(
        replies=[function_call("set_model_response", {"response": {"result": "hi"}})]
    )
    agent = LlmAgent(
        name="a", model=model, tools=[lookup], output_schema=RAW_SCHEMA, output_key="answer"
    )
    runner = await start(agent, session_service)
    events = await send(runner, "answer?")
    assert events[1].get_function_responses()[0].response == {"result": "hi"}
    assert texts(events[-1:]) == ['{"result": "hi"}']
    assert (await stored(runner)).state["answer"] == {"result": "hi"}


async def test_a_list_answer_ends_the_turn(session_service: BaseSessionService) -> None:
    model = ScriptedModel(
        replies=[function_call("set_model_response", {"items": [{"id": 1}, {"id": "2"}]})]
    )
    agent = LlmAgent(
        name="a", model=model, tools=[lookup], output_schema=list[Item], output_key="answer"
    )
    runner = await start(agent, session_service)
    events = await send(runner, "answer?")
    assert events[1].get_function_responses()[0].response == {"result": [{"id": 1}, {"id": 2}]}
    assert texts(events[-1:]) == ['[{"id": 1}, {"id": 2}]']
    assert (await stored(runner)).state["answer"] == [{"id": 1}, {"id": 2}]


async def test_a_call_a_callback_answered_instead_is_no_final_answer(
    session_service: BaseSessionService,
) -> None:
    def block(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> Any:
        return {"blocked": tool.name} if tool.name == "set_model_response" else None

    model = ScriptedModel(
        replies=[function_call("set_model_response", {"id": 3}), "no structured answer"]
    )
    agent = LlmAgent(
        name="a",
        model=model,
        tools=[lookup],
        output_schema=Item,
        before_tool_callback=block,
    )
    runner = await start(agent, session_service)
    events = await send(runner, "answer?")
    assert events[1].get_function_responses()[0].response == {"blocked": "set_model_response"}
    assert texts(events[-1:]) == ["no structured answer"]
    assert len(model.requests) == 2


async def test_run_async_answers_a_bad_call_with_a_retry_request() -> None:
    # As google-adk 2.13: the validation error goes back to the model, nothing is raised.
    tool = SetModelResponseTool(list[Item])
    result = await tool.run_async(args={"items": [{"id": "x"}]}, tool_context=_no_context())
    assert set(result) == {"error"}
    assert "items.0.id" in result["error"]
    assert tool.answer_json({"items": [{"id": "x"}]}, result) is None


def _no_context() -> Any:
    return None  # run_async does not use its context


def test_declaration_is_a_function_declaration() -> None:
    assert isinstance(SetModelResponseTool(Item)._get_declaration(), types.FunctionDeclaration)
