"""Behaviours google-adk 2.13's own tests pin down, on a scripted model."""

from __future__ import annotations

import logging
import sys

import pytest
from google.genai import types
from pydantic import ValidationError

from adk_runtime.agents import LlmAgent, RunConfig
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools import LongRunningFunctionTool, ToolContext
from tests.llm.helpers import send, start, stored


def lookup(city: str, tool_context: ToolContext) -> dict[str, str]:
    """Look up the weather of a city."""
    return {"city": city, "weather": "sunny"}


def _ids(contents: list[types.Content]) -> list[str | None]:
    ids: list[str | None] = []
    for content in contents:
        for part in content.parts or []:
            item = part.function_call or part.function_response
            if item is not None:
                ids.append(item.id)
    return ids


async def test_runtime_minted_call_ids_are_not_sent_to_the_model() -> None:
    call = types.Part(function_call=types.FunctionCall(name="lookup", args={"city": "Oslo"}))
    model = ScriptedModel(replies=[call, "It is sunny."])
    runner = await start(
        LlmAgent(name="root", model=model, tools=[lookup]), InMemorySessionService()
    )
    await send(runner, "weather in Oslo?")
    session = await stored(runner)
    minted = _ids([e.content for e in session.events if e.content is not None])
    assert len(minted) == 2
    assert all(i is not None and i.startswith("adk-") for i in minted)  # kept in the history
    assert _ids(model.requests[1].contents) == [None, None]  # not sent to the model


def test_max_llm_calls_of_sys_maxsize_is_rejected() -> None:
    with pytest.raises(ValidationError, match=f"max_llm_calls should be less than {sys.maxsize}"):
        RunConfig(max_llm_calls=sys.maxsize)
    assert RunConfig(max_llm_calls=sys.maxsize - 1).max_llm_calls == sys.maxsize - 1
    assert RunConfig(max_llm_calls=0).max_llm_calls == 0  # no bound


@pytest.mark.parametrize(("value", "warned"), [(0, True), (-1, True), (1, False), (500, False)])
def test_an_unbounded_max_llm_calls_is_warned_about(
    value: int, warned: bool, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="adk_runtime.core.run_config"):
        assert RunConfig.validate_max_llm_calls(value) == value
    assert ("no bound on model calls" in caplog.text) is warned


def book(flight: str, seats: int, window: bool = False) -> dict[str, object]:
    """Book seats on a flight."""
    return {"flight": flight, "seats": seats, "window": window}


async def test_missing_required_arguments_ask_the_model_to_call_again() -> None:
    call = types.Part(function_call=types.FunctionCall(name="book", args={"window": True}))
    retry = types.Part(
        function_call=types.FunctionCall(name="book", args={"flight": "SK1", "seats": 2})
    )
    model = ScriptedModel(replies=[call, retry, "Booked."])
    runner = await start(LlmAgent(name="root", model=model, tools=[book]), InMemorySessionService())
    await send(runner, "book SK1")
    first = model.requests[1].contents[-1].parts
    assert first is not None
    assert first[0].function_response is not None
    error = (first[0].function_response.response or {})["error"]
    assert "flight" in error
    assert "seats" in error
    assert "window" not in error  # it has a default
    assert "again" in error  # tells the model to retry
    assert "Field required" not in error  # not pydantic's wording
    second = model.requests[2].contents[-1].parts
    assert second is not None
    assert second[0].function_response is not None
    assert second[0].function_response.response == {"flight": "SK1", "seats": 2, "window": False}


async def test_a_pending_long_running_result_ends_the_turn_without_a_second_model_call() -> None:
    # An intentional difference from google-adk (docs/tutorials/porting-from-google-adk.md,
    # "What behaves differently").
    def ask_approval(amount: int) -> dict[str, str]:
        """Ask a manager to approve a refund."""
        return {"status": "pending"}

    call = types.Part(
        function_call=types.FunctionCall(id="lr-1", name="ask_approval", args={"amount": 5})
    )
    model = ScriptedModel(replies=[call, "waiting for approval"])
    agent = LlmAgent(name="root", model=model, tools=[LongRunningFunctionTool(ask_approval)])
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "refund 5")
    assert len(model.requests) == 1
    assert events[-1].get_function_responses()[0].response == {"status": "pending"}
    assert events[-2].long_running_tool_ids == {"lr-1"}
