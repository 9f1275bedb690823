"""A generator tool asks the user (RequestInput), pauses, and runs again with the answer.

Every backend; the answer is sent through another replica (a second service on the same
store, a fresh Runner and model), as after a restart.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel, ValidationError

from adk_runtime.agents import LlmAgent
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, RequestInput
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.backends import twin
from tests.llm.helpers import APP, send, start, stored, texts


class Refund(BaseModel):
    approved: bool
    note: str = ""


class Desk:
    """A refund tool that asks for approval, and counts its runs."""

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []

    async def refund(self, order: str, tool_context: ToolContext) -> AsyncIterator[Any]:
        """Refund an order once a person approves it."""
        self.runs.append(dict(tool_context.resume_inputs))
        yield Event(message=f"Checking order {order}")
        tool_context.state["checked"] = order
        answer = tool_context.resume_inputs.get(f"approve-{order}")
        if answer is None:
            yield RequestInput(
                interrupt_id=f"approve-{order}",
                message=f"Refund order {order}?",
                payload={"order": order},
                response_schema=Refund,
            )
            raise AssertionError("not reached: the tool stops at its request")
        yield {"order": order, "refunded": answer["approved"], "note": answer.get("note", "")}


def _agent(desk: Desk, *replies: Any) -> LlmAgent:
    model = ScriptedModel(replies=list(replies))
    return LlmAgent(name="clerk", model=model, tools=[desk.refund])


def _answer(request_id: str, response: dict[str, Any]) -> types.Content:
    answer = types.FunctionResponse(id=request_id, name="adk_request_input", response=response)
    return types.Content(role="user", parts=[types.Part(function_response=answer)])


async def _answered_on_a_replica(
    service: BaseSessionService, desk: Desk, message: types.Content, *replies: Any
) -> tuple[list[Event], ScriptedModel]:
    async with twin(service) as replica:
        agent = _agent(desk, *replies)
        runner = Runner(app_name=APP, agent=agent, session_service=replica)
        events = await send(runner, message)
    assert isinstance(agent.model, ScriptedModel)
    return events, agent.model


async def test_the_tool_asks_pauses_and_runs_again_with_the_answer(
    session_service: BaseSessionService,
) -> None:
    desk = Desk()
    agent = _agent(desk, function_call("refund", {"order": "A7"}, id="call-1"))
    runner = await start(agent, session_service)
    events = await send(runner, "refund A7")

    # the call, its progress, the request: then the invocation pauses (no response, no reply)
    assert [e.author for e in events] == ["clerk", "refund", "refund"]
    [request] = events[2].get_function_calls()
    assert request.name == "adk_request_input"
    assert request.id == "approve-A7"
    assert request.args == {
        "interruptId": "approve-A7",
        "message": "Refund order A7?",
        "payload": {"order": "A7"},
        "response_schema": Refund.model_json_schema(),
    }
    assert events[2].long_running_tool_ids == {"approve-A7"}
    assert events[2].actions.state_delta == {"checked": "A7"}  # written before it asked
    assert isinstance(agent.model, ScriptedModel)
    assert len(agent.model.requests) == 1
    paused = await stored(runner)
    assert [e.id for e in paused.events[1:]] == [e.id for e in events]
    assert paused.state == {"checked": "A7"}

    events, model = await _answered_on_a_replica(
        session_service,
        desk,
        _answer("approve-A7", {"result": '{"approved": true, "note": "damaged"}'}),
        "Refunded order A7.",
    )
    assert desk.runs == [{}, {"approve-A7": {"approved": True, "note": "damaged"}}]
    assert [e.author for e in events] == ["refund", "clerk", "clerk"]
    assert events[1].get_function_responses()[0].response == {
        "order": "A7",
        "refunded": True,
        "note": "damaged",
    }
    assert events[1].get_function_responses()[0].id == "call-1"
    assert texts(events[-1:]) == ["Refunded order A7."]
    assert {e.invocation_id for e in events} == {paused.events[1].invocation_id}
    # the model sees its call and the tool's output: no progress, request or answer
    [request_sent] = model.requests
    assert [c.role for c in request_sent.contents] == ["user", "model", "user"]
    sent = request_sent.contents[2].parts
    assert sent is not None
    assert [p.function_response.id for p in sent if p.function_response] == ["call-1"]

    # the same answer again (a client retry) runs nothing again and calls no model
    events, model = await _answered_on_a_replica(
        session_service, desk, _answer("approve-A7", {"approved": True, "note": "damaged"})
    )
    assert events == []
    assert model.requests == []
    assert len(desk.runs) == 2
    session = await stored(runner)
    assert session.state == {"checked": "A7"}
    assert len(session.events) == 9  # two user messages, the retry's included


async def test_a_tool_that_asks_twice_gets_both_answers(
    session_service: BaseSessionService,
) -> None:
    asked: list[dict[str, Any]] = []

    async def book(tool_context: ToolContext) -> AsyncIterator[Any]:
        """Book a trip."""
        answers = tool_context.resume_inputs
        asked.append(dict(answers))
        if "city" not in answers:
            yield RequestInput(interrupt_id="city", message="Which city?")
            return
        if "nights" not in answers:
            yield RequestInput(interrupt_id="nights", message="Nights?", response_schema=int)
            return
        yield {"city": answers["city"], "nights": answers["nights"]}

    def agent(*replies: Any) -> LlmAgent:
        return LlmAgent(name="agent", model=ScriptedModel(replies=list(replies)), tools=[book])

    runner = await start(agent(function_call("book", {})), session_service)
    events = await send(runner, "book a trip")
    assert events[-1].get_function_calls()[0].id == "city"

    second = Runner(app_name=APP, agent=agent(), session_service=session_service)
    events = await send(second, _answer("city", {"result": "Lisbon"}))
    [request] = events[-1].get_function_calls()
    assert (request.id, request.args["response_schema"]) == ("nights", {"type": "integer"})  # type: ignore[index]

    third = Runner(app_name=APP, agent=agent("Booked."), session_service=session_service)
    events = await send(third, _answer("nights", {"result": "3"}))
    assert events[0].get_function_responses()[0].response == {"city": "Lisbon", "nights": 3}
    assert texts(events[-1:]) == ["Booked."]
    assert asked == [{}, {"city": "Lisbon"}, {"city": "Lisbon", "nights": 3}]


async def test_a_second_call_asking_with_the_same_ids_gets_only_its_own_answers(
    session_service: BaseSessionService,
) -> None:
    """A tool's fixed ``interrupt_id`` comes again in its next call: that call is answered
    (an answer to the first call is not taken as its), and it never sees the first call's."""
    asked: list[dict[str, Any]] = []

    async def book(tool_context: ToolContext) -> AsyncIterator[Any]:
        """Book a trip."""
        answers = tool_context.resume_inputs
        asked.append(dict(answers))
        for request_id in ("city", "nights"):
            if request_id not in answers:
                yield RequestInput(interrupt_id=request_id, message=f"{request_id}?")
                return
        yield {"city": answers["city"], "nights": answers["nights"]}

    model = ScriptedModel(
        replies=[
            function_call("book", {}, id="b1"),
            "Booked.",
            function_call("book", {}, id="b2"),
            "Booked again.",
        ]
    )
    runner = await start(LlmAgent(name="agent", model=model, tools=[book]), session_service)
    await send(runner, "book a trip")
    await send(runner, _answer("city", {"result": "Lisbon"}))
    await send(runner, _answer("nights", {"result": 3}))

    events = await send(runner, "and another")
    assert events[-1].get_function_calls()[0].id == "city"
    events = await send(runner, _answer("city", {"result": "Porto"}))
    assert events[-1].get_function_calls()[0].id == "nights"  # not the first call's 3
    events = await send(runner, _answer("nights", {"result": 2}))
    assert events[0].get_function_responses()[0].response == {"city": "Porto", "nights": 2}
    assert asked[3:] == [{}, {"city": "Porto"}, {"city": "Porto", "nights": 2}]


async def test_a_request_with_a_schema_no_one_can_describe_fails_the_call(
    session_service: BaseSessionService,
) -> None:
    async def bad_schema() -> AsyncIterator[Any]:
        """Ask with a schema no one can describe."""
        yield RequestInput(message="?", response_schema=object())

    model = ScriptedModel(replies=[function_call("bad_schema", {}), "It failed."])
    runner = await start(LlmAgent(name="agent", model=model, tools=[bad_schema]), session_service)
    events = await send(runner, "go")
    error = events[1].get_function_responses()[0].response["error"]  # type: ignore[index]
    assert "response_schema" in error
    assert texts(events[-1:]) == ["It failed."]


def test_request_input_model() -> None:
    request = RequestInput(message="Approve?", response_schema=bool)
    assert len(request.interrupt_id) == 36  # a fresh uuid
    dumped = request.model_dump(mode="json", by_alias=True)
    assert dumped["interruptId"] == request.interrupt_id
    assert dumped["responseSchema"] == {"type": "boolean"}
    assert RequestInput.model_validate(dumped).response_json_schema() == {"type": "boolean"}
    for bad in ("", "two words", "x" * 129):
        with pytest.raises(ValidationError):
            RequestInput(interrupt_id=bad)


async def test_parallel_questions_wait_for_every_answer(
    session_service: BaseSessionService,
) -> None:
    async def ask(topic: str, tool_context: ToolContext) -> AsyncIterator[Any]:
        """Ask the user about a topic."""
        answer = tool_context.resume_inputs.get(topic)
        if answer is None:
            yield RequestInput(interrupt_id=topic, message=f"{topic}?")
            return
        yield {topic: answer}

    def agent(*replies: Any) -> LlmAgent:
        return LlmAgent(name="agent", model=ScriptedModel(replies=list(replies)), tools=[ask])

    calls = [function_call("ask", {"topic": "date"}), function_call("ask", {"topic": "time"})]
    runner = await start(agent(calls), session_service)
    events = await send(runner, "plan it")
    assert sorted(c.id or "" for e in events[1:] for c in e.get_function_calls()) == [
        "date",
        "time",
    ]

    # one answer: that call runs again, and the invocation waits for the other
    waiting = agent()
    second = Runner(app_name=APP, agent=waiting, session_service=session_service)
    events = await send(second, _answer("date", {"result": "Friday"}))
    assert [r.response for e in events for r in e.get_function_responses()] == [{"date": "Friday"}]
    assert isinstance(waiting.model, ScriptedModel)
    assert waiting.model.requests == []  # not asked while a question is open

    last = agent("Friday at noon.")
    third = Runner(app_name=APP, agent=last, session_service=session_service)
    events = await send(third, _answer("time", {"result": "noon"}))
    assert texts(events[-1:]) == ["Friday at noon."]
    assert isinstance(last.model, ScriptedModel)
    [request] = last.model.requests
    responses = [
        p.function_response.response
        for c in request.contents
        for p in c.parts or []
        if p.function_response
    ]
    assert responses == [{"date": "Friday"}, {"time": "noon"}]


async def test_an_answer_under_another_name_is_matched_by_id_and_stored_under_its_calls(
    session_service: BaseSessionService,
) -> None:
    """As google-adk matches it: by the request's id (here sent under the tool's name)."""
    desk = Desk()
    runner = await start(
        _agent(desk, function_call("refund", {"order": "B2"}, id="call-2"), "Refunded B2."),
        session_service,
    )
    await send(runner, "refund B2")
    events = await send(runner, _answer_named("approve-B2", "refund", {"approved": True}))
    assert texts(events[-1:]) == ["Refunded B2."]
    assert desk.runs == [{}, {"approve-B2": {"approved": True}}]
    answers = [
        r for e in (await stored(runner)).events for r in e.get_function_responses()
        if r.id == "approve-B2"
    ]  # fmt: skip
    assert [r.name for r in answers] == ["adk_request_input"]


async def test_an_answer_that_does_not_match_the_schema_is_refused_and_not_stored(
    session_service: BaseSessionService,
) -> None:
    desk = Desk()
    runner = await start(
        _agent(desk, function_call("refund", {"order": "C3"}, id="call-3")), session_service
    )
    await send(runner, "refund C3")
    before = await stored(runner)
    for wrong in ({"approved": "maybe-later"}, {"note": "no decision"}, {"result": "[1, 2]"}):
        with pytest.raises(InputValidationError, match="response_schema") as refused:
            await send(runner, _answer("approve-C3", wrong))
        assert "maybe-later" not in str(refused.value)  # where and which rule, not the value
    after = await stored(runner)
    assert [e.id for e in after.events] == [e.id for e in before.events]
    assert len(desk.runs) == 1
    # a matching answer (the bare object, not wrapped in "result") goes through
    model = ScriptedModel(replies=["Refunded."])
    replay = Runner(
        app_name=APP,
        agent=LlmAgent(name="clerk", model=model, tools=[desk.refund]),
        session_service=session_service,
    )
    events = await send(replay, _answer("approve-C3", {"approved": False}))
    assert events[1].get_function_responses()[0].response == {
        "order": "C3",
        "refunded": False,
        "note": "",
    }


def _answer_named(request_id: str, name: str, response: dict[str, Any]) -> types.Content:
    answer = types.FunctionResponse(id=request_id, name=name, response=response)
    return types.Content(role="user", parts=[types.Part(function_response=answer)])


class Crash(BaseException):
    """What a process being killed leaves: nothing catches it."""


async def test_a_crash_while_the_answer_runs_is_finished_on_resume(
    session_service: BaseSessionService,
) -> None:
    runs: list[int] = []

    async def deploy(tool_context: ToolContext) -> AsyncIterator[Any]:
        """Deploy after approval."""
        runs.append(tool_context.attempt)
        yield Event(message="preparing")
        if "go" not in tool_context.resume_inputs:
            yield RequestInput(interrupt_id="go", message="Deploy?")
            return
        if len(runs) == 2:
            raise Crash  # the process dies while the answered call runs
        yield {"deployed": tool_context.resume_inputs["go"]}

    def agent(*replies: Any) -> LlmAgent:
        model = ScriptedModel(replies=list(replies))
        return LlmAgent(name="ops", model=model, tools=[deploy])

    runner = await start(agent(function_call("deploy", {}, id="call-d")), session_service)
    await send(runner, "deploy")
    with pytest.raises(Crash):
        await send(runner, _answer("go", {"result": "yes"}))
    [crashed] = await session_service.list_interrupted_invocations(app_name=APP)

    async with twin(session_service) as replica:
        finisher = agent("Deployed.")
        resumed = Runner(app_name=APP, agent=finisher, session_service=replica)
        events = [
            event
            async for event in resumed.run_async(
                user_id="u1", session_id="s1", invocation_id=crashed.invocation_id
            )
        ]
    assert events[-2].get_function_responses()[0].response == {"deployed": "yes"}
    assert texts(events[-1:]) == ["Deployed."]
    assert len(runs) == 3
    assert isinstance(finisher.model, ScriptedModel)
    [request] = finisher.model.requests
    assert [c.role for c in request.contents] == ["user", "model", "user"]
