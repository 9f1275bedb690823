"""``request_input``: the model asks the user a question; the invocation waits for the answer."""

from __future__ import annotations

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools._request_input_tool import request_input
from tests.llm.helpers import send, start, stored, texts


def test_the_model_is_offered_a_question_with_an_optional_answer_schema() -> None:
    declaration = request_input._get_declaration()
    assert declaration is not None
    assert declaration.name == "adk_request_input"
    schema = declaration.parameters_json_schema
    if schema is None:
        assert declaration.parameters is not None
        schema = declaration.parameters.model_dump(exclude_none=True)
    assert set(schema["properties"]) == {"message", "response_schema"}
    assert schema["required"] == ["message"]


async def test_the_invocation_pauses_until_the_user_answers(
    session_service: BaseSessionService,
) -> None:
    ask = function_call("adk_request_input", {"message": "Which city?"}, id="ask-1")
    model = ScriptedModel(replies=[ask, "Booked for Lima."])
    runner = await start(LlmAgent(name="bot", model=model, tools=[request_input]), session_service)

    paused = await send(runner, "book me a room")
    assert paused[0].long_running_tool_ids == {"ask-1"}
    assert texts(paused) == []
    assert len(model.requests) == 1

    response = types.FunctionResponse(
        id="ask-1", name="adk_request_input", response={"answer": "Lima"}
    )
    answer = types.Content(role="user", parts=[types.Part(function_response=response)])
    resumed = await send(runner, answer)
    assert texts(resumed) == ["Booked for Lima."]
    assert resumed[0].invocation_id == paused[0].invocation_id
    last_request = model.requests[1].contents
    assert last_request[-1].parts[0].function_response == response  # type: ignore[index]
    session = await stored(runner)
    assert texts(session.events)[-1] == "Booked for Lima."
