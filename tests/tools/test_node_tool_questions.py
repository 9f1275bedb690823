"""A workflow tool whose node asks the user (RequestInput): the call pauses, the answer (sent
through another replica, as after a restart) runs it again from its committed run, and nodes
that finished do not run again; on every backend."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, LoopAgent
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, EventActions, RequestInput
from adk_runtime.flows.llm_flows.functions import REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import FunctionTool, LongRunningFunctionTool
from adk_runtime.workflow import START, JoinNode, NodeContext, Workflow
from tests.backends import twin
from tests.llm.helpers import APP, USER, send, start, stored, texts
from tests.tools.test_tool_authentication import SEEN, answer, request_of, weather


class Topic(pydantic.BaseModel):
    topic: str


class Name(pydantic.BaseModel):
    name: str


class Desk:
    """A workflow that notes a topic, asks for a name, then greets; counts its node runs."""

    def __init__(self) -> None:
        self.runs: list[Any] = []
        self.crash_in_greet = False

    def workflow(self) -> Workflow:
        def note(node_input: Topic, ctx: NodeContext) -> str:
            self.runs.append("note")
            ctx.state["topic"] = node_input.topic
            return node_input.topic

        async def ask(node_input: str) -> AsyncIterator[Any]:
            self.runs.append("ask")
            yield RequestInput(interrupt_id="who", message=f"Who asks about {node_input}?")

        def greet(node_input: dict[str, Any], ctx: NodeContext) -> str:
            self.runs.append(("greet", node_input))
            if self.crash_in_greet:
                self.crash_in_greet = False
                raise Crash
            return f"hello {node_input['name']} ({ctx.state['topic']})"

        return Workflow(
            name="collect", edges=[(START, note, ask, greet)], description="Greet someone."
        )


class Crash(BaseException):
    """What a process being killed leaves: nothing catches it."""


def _agent(desk: Desk, *replies: Any) -> LlmAgent:
    return LlmAgent(
        name="clerk", model=ScriptedModel(replies=list(replies)), tools=[desk.workflow()]
    )


def _answer(*pairs: tuple[str, Any]) -> types.Content:
    parts = [
        types.Part(
            function_response=types.FunctionResponse(
                id=request_id, name="adk_request_input", response=response
            )
        )
        for request_id, response in pairs
    ]
    return types.Content(role="user", parts=parts)


def _questions(events: list[Event]) -> list[types.FunctionCall]:
    return [
        call
        for event in events
        for call in event.get_function_calls()
        if call.name == "adk_request_input" and call.id in (event.long_running_tool_ids or set())
    ]


async def _resumed_on_a_replica(service: BaseSessionService, agent: LlmAgent) -> list[Event]:
    """The events of the session's crashed invocation, resumed by ``agent`` on a replica."""
    [crashed] = await service.list_interrupted_invocations(app_name=APP)
    async with twin(service) as replica:
        resumed = Runner(app_name=APP, agent=agent, session_service=replica)
        return [
            event
            async for event in resumed.run_async(
                user_id=USER, session_id="s1", invocation_id=crashed.invocation_id
            )
        ]


def _responses(events: list[Event]) -> dict[str, Any]:
    return {r.id or "": r.response for event in events for r in event.get_function_responses()}


async def test_the_call_pauses_on_the_question_and_the_answer_goes_on_from_its_run(
    session_service: BaseSessionService,
) -> None:
    desk = Desk()
    asking = _agent(desk, function_call("collect", {"topic": "tea"}, id="c1"))
    runner = await start(asking, session_service)
    first = await send(runner, "greet me")

    (question,) = _questions(first)
    assert (question.id, question.args["message"]) == ("who", "Who asks about tea?")  # type: ignore[index]
    asked = next(e for e in first if e.get_function_calls() and e.author != "clerk")
    assert asked.node_info.path.startswith("clerk/collect@c1/")
    assert asked.isolation_scope == "c1"
    assert "c1" not in _responses(first)  # the call waits: no response, the invocation paused
    assert desk.runs == ["note", "ask"]
    assert (await stored(runner)).state["topic"] == "tea"  # committed with its node's event

    async with twin(session_service) as replica:
        finisher = _agent(desk, "Greeted.")
        resumed = Runner(app_name=APP, agent=finisher, session_service=replica)
        second = await send(resumed, _answer(("who", {"name": "Ann"})))
        # the same answer again: the call already ran with it, nothing runs again
        again = await send(resumed, _answer(("who", {"name": "Ann"})))

    assert _responses(second) == {"c1": {"result": "hello Ann (tea)"}}
    assert texts(second[-1:]) == ["Greeted."]
    assert desk.runs == ["note", "ask", ("greet", {"name": "Ann"})]  # note did not run again
    assert isinstance(finisher.model, ScriptedModel)
    [request] = finisher.model.requests
    # the model sees its call and the answer, nothing of the run or of the question
    assert [c.role for c in request.contents] == ["user", "model", "user"]
    assert request.contents[2].parts[0].function_response.response == {"result": "hello Ann (tea)"}  # type: ignore[index,union-attr]
    assert _responses(again) == {}
    assert len(desk.runs) == 3


async def test_an_answer_that_breaks_the_questions_schema_is_refused_and_nothing_is_stored(
    session_service: BaseSessionService,
) -> None:
    async def ask(node_input: Topic) -> AsyncIterator[Any]:
        yield RequestInput(interrupt_id="who", message="Name?", response_schema=Name)

    workflow = Workflow(name="collect", edges=[(START, ask)], input_schema=Topic)
    model = ScriptedModel(replies=[function_call("collect", {"topic": "tea"}, id="c1")])
    runner = await start(LlmAgent(name="clerk", model=model, tools=[workflow]), session_service)
    await send(runner, "greet me")
    before = len((await stored(runner)).events)

    with pytest.raises(InputValidationError, match="response_schema"):
        await send(runner, _answer(("who", {"name": 5})))
    assert len((await stored(runner)).events) == before


async def test_a_run_whose_process_died_goes_on_from_its_log_when_resumed(
    session_service: BaseSessionService,
) -> None:
    desk = Desk()
    desk.crash_in_greet = True
    runner = await start(
        _agent(desk, function_call("collect", {"topic": "tea"}, id="c1")), session_service
    )
    await send(runner, "greet me")
    with pytest.raises(Crash):
        await send(runner, _answer(("who", {"name": "Ann"})))
    events = await _resumed_on_a_replica(session_service, _agent(desk, "Greeted."))
    assert _responses(events) == {"c1": {"result": "hello Ann (tea)"}}
    assert texts(events[-1:]) == ["Greeted."]
    greeted = ("greet", {"name": "Ann"})
    assert desk.runs == ["note", "ask", greeted, greeted]  # only the node that died ran again


async def test_questions_of_parallel_nodes_answered_one_at_a_time_in_a_workflow_agent_node(
    session_service: BaseSessionService,
) -> None:
    async def size(node_input: Topic) -> AsyncIterator[Any]:
        yield RequestInput(interrupt_id="size", message="Size?")

    async def milk(node_input: Topic) -> AsyncIterator[Any]:
        yield RequestInput(interrupt_id="milk", message="Milk?")

    both = JoinNode(name="both")
    order = Workflow(
        name="order",
        edges=[(START, size), (START, milk), (size, both), (milk, both)],
        input_schema=Topic,
    )
    model = ScriptedModel(replies=[function_call("order", {"topic": "tea"}, id="c1"), "Ordered."])
    clerk = LlmAgent(name="clerk", model=model, tools=[order])
    shop = Workflow(name="shop", edges=[(START, clerk)])
    runner = Runner(app_name=APP, node=shop, session_service=session_service)
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")

    first = await send(runner, "tea please")
    assert sorted(call.id or "" for call in _questions(first)) == ["milk", "size"]
    second = await send(runner, _answer(("size", {"result": "large"})))
    assert _responses(second) == {}  # the other question still waits
    third = await send(runner, _answer(("milk", {"result": "no"})))
    assert _responses(third) == {"c1": {"size": "large", "milk": "no"}}  # a dict as it is
    assert texts(third)[-1] == "Ordered."  # the agent node went on to its answer
    assert len(model.requests) == 2


async def test_an_escalation_inside_the_run_does_not_stop_the_callers_loop(
    session_service: BaseSessionService,
) -> None:
    def leave(node_input: Topic) -> Any:
        yield Event(actions=EventActions(escalate=True))  # the run's own loop would stop
        yield "left"

    errand = Workflow(name="errand", edges=[(START, leave)], input_schema=Topic)
    model = ScriptedModel(
        replies=[
            function_call("errand", {"topic": "a"}, id="e1"),
            "first round",
            function_call("errand", {"topic": "b"}, id="e2"),
            "second round",
        ]
    )
    loop = LoopAgent(
        name="rounds",
        max_iterations=2,
        sub_agents=[LlmAgent(name="runner", model=model, tools=[errand])],
    )
    events = await send(await start(loop, session_service), "go")
    assert texts(events) == ["first round", "second round"]
    assert _responses(events) == {"e1": {"result": "left"}, "e2": {"result": "left"}}


async def test_a_long_running_tool_of_an_agent_in_the_run_pauses_the_call_until_answered(
    session_service: BaseSessionService,
) -> None:
    def approve_budget(amount: int) -> None:
        """Ask finance to approve a budget (answered later)."""

    planner = LlmAgent(
        name="planner",
        model=ScriptedModel(
            replies=[function_call("approve_budget", {"amount": 5}, id="lro"), "Budget approved."]
        ),
        tools=[LongRunningFunctionTool(approve_budget)],
    )
    plan = Workflow(name="plan", edges=[(START, planner)], input_schema=Topic)
    model = ScriptedModel(replies=[function_call("plan", {"topic": "party"}, id="c1"), "Planned."])
    runner = await start(LlmAgent(name="host", model=model, tools=[plan]), session_service)

    first = await send(runner, "plan a party")
    waiting = next(e for e in first if e.long_running_tool_ids)
    assert waiting.long_running_tool_ids == {"lro"}
    assert waiting.node_info.path.startswith("host/plan@c1/")
    assert _responses(first) == {}

    finished = types.Content(
        role="user",
        parts=[
            types.Part(
                function_response=types.FunctionResponse(
                    id="lro", name="approve_budget", response={"approved": True}
                )
            )
        ],
    )
    second = await send(runner, finished)
    assert _responses(second) == {"c1": {"result": "Budget approved."}}
    assert texts(second)[-1] == "Planned."
    assert [c.role for c in model.requests[-1].contents] == ["user", "model", "user"]


def _chores(wiped: list[str], *replies: Any) -> Workflow:
    """A workflow whose agent wipes a disk, a tool that needs the user's confirmation."""

    def wipe(disk: str) -> str:
        """Wipe a disk."""
        wiped.append(disk)
        return "wiped"

    janitor = LlmAgent(
        name="janitor",
        model=ScriptedModel(replies=list(replies)),
        tools=[FunctionTool(wipe, require_confirmation=True)],
    )
    return Workflow(name="chores", edges=[(START, janitor)], input_schema=Topic)


def _confirmation_asked(events: list[Event]) -> Event:
    (asked,) = [
        event
        for event in events
        for call in event.get_function_calls()
        if call.name == REQUEST_CONFIRMATION_FUNCTION_CALL_NAME
        and call.id in (event.long_running_tool_ids or set())
    ]
    return asked


def _confirm(asked: Event, response: dict[str, Any]) -> types.Content:
    (call,) = asked.get_function_calls()
    answer = types.FunctionResponse(
        id=call.id, name=REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, response=response
    )
    return types.Content(role="user", parts=[types.Part(function_response=answer)])


async def _host_asking(session_service: BaseSessionService, wiped: list[str]) -> list[Event]:
    """A first turn whose workflow tool's agent asks to confirm wiping disk d."""
    chores = _chores(wiped, function_call("wipe", {"disk": "d"}, id="w1"))
    model = ScriptedModel(replies=[function_call("chores", {"topic": "d"}, id="c1")])
    runner = await start(LlmAgent(name="host", model=model, tools=[chores]), session_service)
    return await send(runner, "clean up")


@pytest.mark.parametrize("confirmed", [True, False])
async def test_a_confirmation_asked_inside_the_run_pauses_the_call_until_the_user_answers(
    session_service: BaseSessionService, confirmed: bool
) -> None:
    wiped: list[str] = []
    first = await _host_asking(session_service, wiped)
    asked = _confirmation_asked(first)
    assert asked.author == "janitor"
    assert asked.node_info.path.startswith("host/chores@c1/")
    assert "c1" not in _responses(first)  # the call waits: no response, the invocation paused
    assert wiped == []

    # The answer comes through another replica (as after a restart): the host runs the call
    # again, the run goes on from its log and the janitor reads the answer.
    async with twin(session_service) as replica:
        chores = _chores(wiped, "Disk d wiped." if confirmed else "Left disk d alone.")
        model = ScriptedModel(replies=["Done."])
        host = LlmAgent(name="host", model=model, tools=[chores])
        resumed = Runner(app_name=APP, agent=host, session_service=replica)
        second = await send(resumed, _confirm(asked, {"confirmed": confirmed}))
        again = await send(resumed, _confirm(asked, {"confirmed": confirmed}))  # sent twice

    expected = "Disk d wiped." if confirmed else "Left disk d alone."
    assert _responses(second)["c1"] == {"result": expected}
    assert texts(second)[-1] == "Done."
    assert wiped == (["d"] if confirmed else [])  # once, and only when confirmed
    assert again == []
    [request] = model.requests  # the host's model sees its call and its answer only
    assert [c.role for c in request.contents] == ["user", "model", "user"]


async def test_a_confirmation_inside_a_workflow_tool_of_an_agent_node_resumes_the_app(
    session_service: BaseSessionService,
) -> None:
    """The calling agent is itself a node of a workflow app: the answer reaches it there."""
    wiped: list[str] = []
    chores = _chores(wiped, function_call("wipe", {"disk": "d"}, id="w1"), "Disk d wiped.")
    model = ScriptedModel(replies=[function_call("chores", {"topic": "d"}, id="c1"), "Done."])
    host = LlmAgent(name="host", model=model, tools=[chores])
    app = Workflow(name="desk", edges=[(START, host)])
    runner = Runner(app_name=APP, node=app, session_service=session_service)
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")

    asked = _confirmation_asked(await send(runner, "clean up"))
    assert wiped == []
    second = await send(runner, _confirm(asked, {"confirmed": True}))
    assert _responses(second)["c1"] == {"result": "Disk d wiped."}
    assert "Done." in texts(second)
    assert wiped == ["d"]


async def test_a_run_answer_is_checked_against_the_run_agent_not_a_namesake_in_the_app(
    session_service: BaseSessionService,
) -> None:
    """The app's graph has an agent named like the run's agent that asked (names are unique
    per tree, and the tool's workflow is a tree of its own): the answer is still checked
    against the request the run's agent stored, not against its namesake's tools."""
    wiped: list[str] = []
    chores = _chores(wiped, function_call("wipe", {"disk": "d"}, id="w1"), "Disk d wiped.")
    model = ScriptedModel(replies=[function_call("chores", {"topic": "d"}, id="c1"), "Done."])
    host = LlmAgent(name="host", model=model, tools=[chores])
    namesake = LlmAgent(name="janitor", model=ScriptedModel(replies=["Swept."]))
    app = Workflow(name="desk", edges=[(START, host, namesake)])
    runner = Runner(app_name=APP, node=app, session_service=session_service)
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")

    asked = _confirmation_asked(await send(runner, "clean up"))
    second = await send(runner, _confirm(asked, {"confirmed": True}))
    assert _responses(second)["c1"] == {"result": "Disk d wiped."}
    assert wiped == ["d"]


async def test_an_answer_to_a_confirmation_inside_the_run_that_is_malformed_is_refused(
    session_service: BaseSessionService,
) -> None:
    wiped: list[str] = []
    first = await _host_asking(session_service, wiped)
    asked = _confirmation_asked(first)
    chores = _chores(wiped, "Disk d wiped.")
    host = LlmAgent(name="host", model=ScriptedModel(replies=["Done."]), tools=[chores])
    runner = Runner(app_name=APP, agent=host, session_service=session_service)
    before = len((await stored(runner)).events)

    with pytest.raises(InputValidationError, match="ToolConfirmation"):
        await send(runner, _confirm(asked, {"confirmed": "perhaps"}))
    assert len((await stored(runner)).events) == before  # nothing was stored
    assert wiped == []
    # the call still waits, and a well-formed answer goes on
    assert _responses(await send(runner, _confirm(asked, {"confirmed": True})))["c1"] == {
        "result": "Disk d wiped."
    }
    assert wiped == ["d"]


async def test_a_credential_asked_inside_the_run_pauses_the_call_until_given(
    session_service: BaseSessionService,
) -> None:
    def forecast_agent(host: list[Any], wx: list[Any]) -> LlmAgent:
        agent = LlmAgent(name="wx", model=ScriptedModel(replies=wx), tools=[weather])
        forecast = Workflow(name="forecast", edges=[(START, agent)], input_schema=Topic)
        return LlmAgent(name="host", model=ScriptedModel(replies=host), tools=[forecast])

    SEEN.clear()
    asking = forecast_agent(
        [function_call("forecast", {"topic": "Oslo"}, id="c1")],
        [function_call("weather", {"city": "Oslo"}, id="w1")],
    )
    first = await send(await start(asking, session_service), "weather?")
    call = request_of(first)
    assert "c1" not in _responses(first)

    async with twin(session_service) as replica:
        answering = forecast_agent(["It is sunny."], ["Sunny in Oslo."])
        resumed = Runner(app_name=APP, agent=answering, session_service=replica)
        second = await send(resumed, answer(call, {"authType": "apiKey", "apiKey": "k-123"}))

    assert SEEN == ["k-123"]  # the run's tool got the user's credential
    assert _responses(second)["c1"] == {"result": "Sunny in Oslo."}
    assert texts(second)[-1] == "It is sunny."


async def test_a_task_node_in_the_run_is_answered_by_function_response_not_by_plain_text(
    session_service: BaseSessionService,
) -> None:
    """In a workflow app a plain message replies to a task node's question; one asked inside
    a tool call's run is answered by a function response, and a plain message goes on to the
    conversation (it is neither swallowed by the run nor stored on its path)."""
    sizer = LlmAgent(
        name="sizer",
        mode="task",
        model=ScriptedModel(
            replies=["What size?", function_call("finish_task", {"result": "large"}, id="f1")]
        ),
    )
    order = Workflow(name="order", edges=[(START, sizer)], input_schema=Topic)
    model = ScriptedModel(
        replies=[function_call("order", {"topic": "tea"}, id="c1"), "Which size, then?", "Done."]
    )
    shop = Workflow(
        name="shop", edges=[(START, LlmAgent(name="clerk", model=model, tools=[order]))]
    )
    runner = Runner(app_name=APP, node=shop, session_service=session_service)
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")

    (question,) = _questions(await send(runner, "tea please"))
    assert question.args["message"] == "What size?"  # type: ignore[index]
    chat = await send(runner, "hm, let me think")
    assert texts(chat)[-1] == "Which size, then?"
    said = [e for e in (await stored(runner)).events if e.author == "user"][-1]
    assert (said.node_info.path, said.isolation_scope) == ("", None)
    assert model.requests[-1].contents[-1].parts[0].text == "hm, let me think"  # type: ignore[index]

    answered = await send(runner, _answer((question.id or "", {"result": "large"})))
    assert _responses(answered)["c1"] == {"result": "large"}
    assert texts(answered)[-1] == "Done."


async def test_the_next_call_asking_with_the_same_question_id_is_answered(
    session_service: BaseSessionService,
) -> None:
    desk = Desk()  # its question has a fixed id, "who"
    model = ScriptedModel(
        replies=[
            function_call("collect", {"topic": "tea"}, id="c1"),
            "One.",
            function_call("collect", {"topic": "milk"}, id="c2"),
            "Two.",
        ]
    )
    runner = await start(
        LlmAgent(name="clerk", model=model, tools=[desk.workflow()]), session_service
    )
    await send(runner, "tea")
    await send(runner, _answer(("who", {"name": "Ann"})))
    (question,) = _questions(await send(runner, "milk"))
    assert question.id == "who"
    events = await send(runner, _answer(("who", {"name": "Bob"})))
    assert _responses(events) == {"c2": {"result": "hello Bob (milk)"}}
    assert texts(events)[-1] == "Two."
    assert desk.runs[-1] == ("greet", {"name": "Bob"})


async def test_a_run_that_died_before_any_question_goes_on_and_the_model_answers(
    session_service: BaseSessionService,
) -> None:
    runs: list[str] = []

    def note(node_input: Topic) -> str:
        runs.append("note")
        return node_input.topic

    def brew(node_input: str) -> str:
        runs.append("brew")
        if runs.count("brew") == 1:
            raise Crash  # the process dies after note's output was committed
        return f"{node_input} brewed"

    def agent(*replies: Any) -> LlmAgent:
        brewing = Workflow(name="brewing", edges=[(START, note, brew)], input_schema=Topic)
        return LlmAgent(name="cook", model=ScriptedModel(replies=list(replies)), tools=[brewing])

    runner = await start(
        agent(function_call("brewing", {"topic": "tea"}, id="c1")), session_service
    )
    with pytest.raises(Crash):
        await send(runner, "make tea")
    events = await _resumed_on_a_replica(session_service, agent("Tea is ready."))
    assert _responses(events) == {"c1": {"result": "tea brewed"}}
    assert texts(events)[-1] == "Tea is ready."  # the run's events did not end the agent's turn
    assert runs == ["note", "brew", "brew"]  # note did not run again
