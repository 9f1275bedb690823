"""get_user_choice: the invocation pauses on the options and resumes with the user's pick."""

from __future__ import annotations

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.get_user_choice_tool import get_user_choice_tool
from tests.llm.helpers import send, start, stored, texts


async def test_the_choice_arrives_later_and_the_model_goes_on(
    session_service: BaseSessionService,
) -> None:
    ask = function_call("get_user_choice", {"options": ["tea", "coffee"]}, id="choice-1")
    model = ScriptedModel(replies=[ask, "Coffee it is."])
    agent = LlmAgent(name="barista", model=model, tools=[get_user_choice_tool])
    runner = await start(agent, session_service)
    paused = await send(runner, "a drink please")
    assert paused[0].long_running_tool_ids == {"choice-1"}
    assert not any(event.get_function_responses() for event in paused)
    assert len(model.requests) == 1  # paused: no second model call, no summary
    answer = types.FunctionResponse(
        id="choice-1", name="get_user_choice", response={"result": "coffee"}
    )
    resumed = await send(
        runner, types.Content(role="user", parts=[types.Part(function_response=answer)])
    )
    assert texts(resumed) == ["Coffee it is."]
    assert {event.invocation_id for event in resumed} == {paused[0].invocation_id}
    sent = model.requests[1].contents[-1].parts[0].function_response
    assert sent is not None
    assert sent.response == {"result": "coffee"}
    session = await stored(runner)
    assert session.events[-1].author == "barista"
