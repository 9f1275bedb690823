"""Delegated tasks (``LlmAgent.mode``): task and single-turn sub-agents, on every backend."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_runtime.agents import LlmAgent
from adk_runtime.apps.app import App, EventsCompactionConfig
from adk_runtime.errors import PluginError
from adk_runtime.events import Event
from adk_runtime.plugins import BasePlugin
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import FunctionTool, LongRunningFunctionTool
from tests.llm.helpers import APP, request_of, send, sent, start, stored, texts, user


def _declared(model: ScriptedModel, index: int = 0) -> dict[str, Any]:
    tools = model.requests[index].config.tools or []
    return {
        d.name or "": d
        for tool in tools
        for d in tool.function_declarations or []  # type: ignore[union-attr]
    }


def _sent(model: ScriptedModel, index: int) -> list[str]:
    """The model's ``index``-th request, part by part (calls and answers named)."""
    return sent(model.requests[index].contents)


def _responses(events: list[Event], name: str) -> list[dict[str, Any]]:
    return [
        dict(r.response or {}) for e in events for r in e.get_function_responses() if r.name == name
    ]


def _coordinator(model: ScriptedModel, *subs: LlmAgent) -> LlmAgent:
    return LlmAgent(name="root", model=model, sub_agents=list(subs))


async def test_task_agent_finishes_in_one_turn(session_service: BaseSessionService) -> None:
    child_model = ScriptedModel(replies=[function_call("finish_task", {"result": "booked"})])
    child = LlmAgent(name="booker", model=child_model, mode="task", description="Books.")
    root_model = ScriptedModel(
        replies=[function_call("booker", {"request": "book a table"}), "Your table is booked."]
    )
    runner = await start(_coordinator(root_model, child), session_service)

    events = await send(runner, "a table for two")

    assert [e.author for e in events] == ["root", "booker", "booker", "root", "root"]
    assert _responses(events, "booker") == [{"result": "booked"}]
    assert _responses(events, "finish_task") == [{"result": "Task completed."}]
    assert texts(events)[-1] == "Your table is booked."
    # the task is a tool for the coordinator, not a transfer target
    declared = _declared(root_model)
    assert "booker" in declared
    assert "transfer_to_agent" not in declared
    assert "finish_task" in _declared(child_model)
    # the task agent sees its task, not the conversation; the coordinator not its work
    assert _sent(child_model, 0) == ['user: {"request": "book a table"}']
    assert _sent(root_model, 1) == [
        "user: a table for two",
        "model: call booker",
        "user: response booker",
    ]
    session = await stored(runner)
    call_id = events[0].get_function_calls()[0].id
    assert [e.isolation_scope for e in session.events] == [None, None, call_id, call_id, None, None]


async def test_task_agent_asks_the_user_across_turns_and_replicas(
    session_service: BaseSessionService,
) -> None:
    def agents() -> tuple[LlmAgent, ScriptedModel, ScriptedModel]:
        child_model = ScriptedModel(
            replies=["For how many people?", function_call("finish_task", {"result": "4 people"})]
        )
        child = LlmAgent(name="booker", model=child_model, mode="task")
        root_model = ScriptedModel(
            replies=[function_call("booker", {"request": "book a table"}), "Booked for 4."]
        )
        return _coordinator(root_model, child), root_model, child_model

    root, _root_model, _child_model = agents()
    runner = await start(root, session_service)
    first = await send(runner, "book me a table")
    assert texts(first) == ["For how many people?"]
    assert first[-1].author == "booker"
    assert _responses(first, "booker") == []  # the call stays open

    # another replica (fresh agents and Runner, same store) gets the reply
    root2, root_model2, child_model2 = agents()
    child_model2.replies.pop(0)  # this replica's child model is past the question
    root_model2.replies.pop(0)
    replica = Runner(app_name=APP, agent=root2, session_service=session_service)
    second = await send(replica, "four")

    assert [e.author for e in second] == ["booker", "booker", "root", "root"]
    assert _responses(second, "booker") == [{"result": "4 people"}]
    assert texts(second)[-1] == "Booked for 4."
    assert len(root_model2.requests) == 1  # the coordinator's model was not asked until done
    assert _sent(child_model2, 0) == [
        'user: {"request": "book a table"}',
        "model: For how many people?",
        "user: four",
    ]
    assert _sent(root_model2, 0) == [
        "user: book me a table",
        "model: call booker",
        "user: response booker",
    ]
    session = await stored(runner)
    reply = next(e for e in session.events if e.author == "user" and e.isolation_scope)
    assert reply.content is not None
    assert reply.content.parts[0].text == "four"

    # the task is over: the next message is the coordinator's again, outside any scope
    root_model2.replies.append("Anything else?")
    third = await send(replica, "thanks")
    assert texts(third) == ["Anything else?"]
    last_user = [e for e in (await stored(runner)).events if e.author == "user"][-1]
    assert last_user.isolation_scope is None


class _Identity(BaseModel):
    name: str
    age: int


async def test_task_result_is_validated_and_retried(session_service: BaseSessionService) -> None:
    child_model = ScriptedModel(
        replies=[
            function_call("finish_task", {"name": "Jane", "age": "thirty"}),
            function_call("finish_task", {"name": "Jane", "age": 30}),
        ]
    )
    child = LlmAgent(
        name="intake", model=child_model, mode="task", output_schema=_Identity, output_key="who"
    )
    root_model = ScriptedModel(replies=[function_call("intake", {"request": "who?"}), "Done."])
    runner = await start(_coordinator(root_model, child), session_service)

    events = await send(runner, "hi")

    finish = _responses(events, "finish_task")
    assert len(finish) == 2
    assert "error" in finish[0]
    assert "age" in finish[0]["error"]
    assert finish[1] == {"result": "Task completed."}
    assert _responses(events, "intake") == [{"name": "Jane", "age": 30}]
    assert (await stored(runner)).state["who"] == {"name": "Jane", "age": 30}
    # the schema is finish_task's parameters, not a response schema of the task agent
    declaration = _declared(child_model)["finish_task"]
    assert set(declaration.parameters_json_schema["required"]) == {"name", "age"}
    assert child_model.requests[0].config.response_schema is None


async def test_single_turn_agent_answers_from_its_input(
    session_service: BaseSessionService,
) -> None:
    child_model = ScriptedModel(replies=[json.dumps({"name": "Ada", "age": 36})])
    child = LlmAgent(name="extract", model=child_model, mode="single_turn", output_schema=_Identity)
    root_model = ScriptedModel(
        replies=[function_call("extract", {"request": "Ada, 36"}), "Ada is 36."]
    )
    runner = await start(_coordinator(root_model, child), session_service)

    events = await send(runner, "who is this?")

    assert _responses(events, "extract") == [{"name": "Ada", "age": 36}]
    assert texts(events)[-1] == "Ada is 36."
    sent = _sent(child_model, 0)
    assert sent[0] == 'user: {"request": "Ada, 36"}'
    assert len(sent) == 2
    assert "finish_task" not in _declared(child_model)
    # a single-turn agent never waits: the next message is the coordinator's
    root_model.replies.append("ok")
    assert texts(await send(runner, "thanks")) == ["ok"]


async def test_plain_calls_run_before_the_task_in_one_response(
    session_service: BaseSessionService,
) -> None:
    seen: list[str] = []

    def lookup(city: str) -> str:
        """Weather in a city."""
        seen.append(city)
        return "sunny"

    child_model = ScriptedModel(replies=[function_call("finish_task", {"result": "done"})])
    child = LlmAgent(name="planner", model=child_model, mode="task")
    both = types.Content(
        role="model",
        parts=[
            types.Part(function_call=types.FunctionCall(name="lookup", args={"city": "Oslo"})),
            types.Part(function_call=types.FunctionCall(name="planner", args={"request": "plan"})),
        ],
    )
    root_model = ScriptedModel(replies=[both, "All set."])
    root = LlmAgent(name="root", model=root_model, tools=[lookup], sub_agents=[child])
    runner = await start(root, session_service)

    events = await send(runner, "plan a trip")

    assert seen == ["Oslo"]
    assert _responses(events, "lookup") == [{"result": "sunny"}]
    assert _responses(events, "planner") == [{"result": "done"}]
    assert texts(events)[-1] == "All set."
    names = [r.name for r in (await stored(runner)).events[1].get_function_calls()]
    assert names == ["lookup", "planner"]


@pytest.mark.parametrize("mode", ["task", "single_turn"])
async def test_delegated_agents_are_not_transfer_targets(mode: str) -> None:
    child = LlmAgent(name="child", model=ScriptedModel(replies=[]), mode=mode)  # type: ignore[arg-type]
    peer = LlmAgent(name="peer", model=ScriptedModel(replies=[]))
    root = LlmAgent(name="root", model=ScriptedModel(replies=[]), sub_agents=[child, peer])
    assert [a.name for a in root._transfer_targets()] == ["peer"]
    assert [a.name for a in peer._transfer_targets()] == ["root"]
    assert child._transfer_targets() == []
    tools = {t.name: type(t).__name__ for t in await root.canonical_tools()}
    expected = "_TaskAgentTool" if mode == "task" else "_SingleTurnAgentTool"
    assert tools == {"transfer_to_agent": "TransferToAgentTool", "child": expected}


class _Crash(Exception):
    pass


async def test_a_task_cut_short_is_resumed_where_it_stopped(
    session_service: BaseSessionService,
) -> None:
    """The process dies inside the task (its tool ran, its next model call did not): the
    invocation's resume continues the task from its committed events, not from scratch."""
    runs: list[str] = []

    def reserve(table: int) -> str:
        """Reserve a table."""
        runs.append(f"reserve {table}")
        return "reserved"

    def crash(request: Any) -> Any:
        raise _Crash

    child_model = ScriptedModel(
        replies=[  # dies on its second call
            function_call("reserve", {"table": 7}),
            crash,
            function_call("finish_task", {"result": "table 7 booked"}),
        ]
    )
    child = LlmAgent(name="booker", model=child_model, mode="task", tools=[reserve])
    root_model = ScriptedModel(
        replies=[function_call("booker", {"request": "table 7"}), "Table 7 is yours."]
    )
    runner = await start(_coordinator(root_model, child), session_service)
    with pytest.raises(_Crash):
        await send(runner, "book table 7")
    invocation_id = (await stored(runner)).events[0].invocation_id

    resumed = [
        e
        async for e in runner.run_async(user_id="u1", session_id="s1", invocation_id=invocation_id)
    ]

    assert runs == ["reserve 7"]  # the tool's committed result was not redone
    assert _responses(resumed, "booker") == [{"result": "table 7 booked"}]
    assert texts(resumed)[-1] == "Table 7 is yours."
    # the task agent continued with its own tool result in view
    assert _sent(child_model, -1) == [
        'user: {"request": "table 7"}',
        "model: call reserve",
        "user: response reserve",
    ]
    session = await stored(runner)
    scopes = {e.isolation_scope for e in session.events if e.author == "booker"}
    assert scopes == {session.events[1].get_function_calls()[0].id}


def _answer(call: types.FunctionCall, response: dict[str, Any]) -> types.Content:
    reply = types.FunctionResponse(id=call.id, name=call.name, response=response)
    return types.Content(role="user", parts=[types.Part(function_response=reply)])


async def test_a_long_running_call_inside_a_task_is_answered_on_another_replica(
    session_service: BaseSessionService,
) -> None:
    def hold(table: int) -> dict[str, str]:
        """Ask the restaurant to hold a table (they answer later)."""
        return {"status": "pending"}

    def agents() -> tuple[LlmAgent, ScriptedModel, ScriptedModel]:
        child_model = ScriptedModel(
            replies=[
                function_call("hold", {"table": 3}, id="hold-1"),
                function_call("finish_task", {"result": "held"}),
            ]
        )
        child = LlmAgent(
            name="booker",
            model=child_model,
            mode="task",
            tools=[LongRunningFunctionTool(hold)],
        )
        root_model = ScriptedModel(
            replies=[function_call("booker", {"request": "hold table 3"}), "Table 3 is held."]
        )
        return _coordinator(root_model, child), root_model, child_model

    root, _, _ = agents()
    runner = await start(root, session_service)
    first = await send(runner, "hold a table")
    assert [e.author for e in first] == ["root", "booker", "booker"]
    assert first[1].long_running_tool_ids == {"hold-1"}

    root2, root_model2, child_model2 = agents()
    child_model2.replies.pop(0)
    root_model2.replies.pop(0)
    replica = Runner(app_name=APP, agent=root2, session_service=session_service)
    call = first[1].get_function_calls()[0]
    second = await send(replica, _answer(call, {"status": "held"}))

    assert _responses(second, "booker") == [{"result": "held"}]
    assert texts(second)[-1] == "Table 3 is held."
    assert second[0].invocation_id == first[0].invocation_id  # the paused invocation goes on
    # the task agent saw the answer in its own scope; the coordinator did not
    assert _sent(child_model2, 0)[-1] == "user: response hold"
    assert "user: response hold" not in _sent(root_model2, 0)
    session = await stored(runner)
    answer = next(e for e in session.events if e.author == "user" and e.get_function_responses())
    assert answer.isolation_scope == first[0].get_function_calls()[0].id


async def test_a_confirmation_inside_a_task(session_service: BaseSessionService) -> None:
    charged: list[int] = []

    def charge(amount: int) -> str:
        """Charge the card."""
        charged.append(amount)
        return "charged"

    child_model = ScriptedModel(
        replies=[
            function_call("charge", {"amount": 20}),
            function_call("finish_task", {"result": "paid 20"}),
        ]
    )
    child = LlmAgent(
        name="payer",
        model=child_model,
        mode="task",
        tools=[FunctionTool(charge, require_confirmation=True)],
    )
    root_model = ScriptedModel(replies=[function_call("payer", {"request": "pay 20"}), "Paid."])
    runner = await start(_coordinator(root_model, child), session_service)

    first = await send(runner, "pay my bill")
    request = request_of(first)
    assert request.author == "payer"
    assert charged == []

    second = await send(runner, _answer(request.get_function_calls()[0], {"confirmed": True}))

    assert charged == [20]
    assert _responses(second, "payer") == [{"result": "paid 20"}]
    assert texts(second)[-1] == "Paid."


async def test_a_single_turn_agent_waiting_on_a_long_running_call(
    session_service: BaseSessionService,
) -> None:
    def approve(amount: int) -> dict[str, str]:
        """Ask for approval (answered later)."""
        return {"status": "pending"}

    child_model = ScriptedModel(
        replies=[function_call("approve", {"amount": 5}, id="ap-1"), "approved 5"]
    )
    child = LlmAgent(
        name="checker",
        model=child_model,
        mode="single_turn",
        tools=[LongRunningFunctionTool(approve)],
    )
    root_model = ScriptedModel(
        replies=[function_call("checker", {"request": "approve 5"}), "It is approved."]
    )
    runner = await start(_coordinator(root_model, child), session_service)

    first = await send(runner, "approve 5")
    assert _responses(first, "checker") == []  # no empty answer while the call waits
    assert len(root_model.requests) == 1

    call = first[1].get_function_calls()[0]
    second = await send(runner, _answer(call, {"status": "approved"}))

    assert _responses(second, "checker") == [{"result": "approved 5"}]
    assert texts(second)[-1] == "It is approved."


async def test_compaction_never_summarises_a_tasks_work(
    session_service: BaseSessionService,
) -> None:
    from tests.llm.test_compaction import Recording

    summarizer = Recording()
    child_model = ScriptedModel(
        replies=["Which day?", function_call("finish_task", {"result": "Monday"})]
    )
    child = LlmAgent(name="booker", model=child_model, mode="task")
    root_model = ScriptedModel(
        replies=[function_call("booker", {"request": "book"}), "Booked for Monday."]
    )
    app = App(
        name=APP,
        root_agent=_coordinator(root_model, child),
        events_compaction_config=EventsCompactionConfig(
            summarizer=summarizer, compaction_interval=1, overlap_size=0
        ),
    )
    runner = Runner(app=app, session_service=session_service)
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")

    await send(runner, "book please")
    await send(runner, "Monday")

    assert summarizer.calls  # a summary was due after each turn
    summarised = [e for call in summarizer.calls for e in call]
    assert all(e.isolation_scope is None for e in summarised)
    assert not any(e.author == "booker" for e in summarised)
    # the task agent still read its own history in full
    assert _sent(child_model, 1)[-2:] == ["model: Which day?", "user: Monday"]


async def test_a_result_that_is_not_an_object_is_passed_under_result(
    session_service: BaseSessionService,
) -> None:
    child_model = ScriptedModel(
        replies=[function_call("finish_task", {"result": ["salt", "pepper"]})]
    )
    child = LlmAgent(name="lister", model=child_model, mode="task", output_schema=list[str])
    root_model = ScriptedModel(replies=[function_call("lister", {"request": "spices"}), "ok"])
    runner = await start(_coordinator(root_model, child), session_service)

    events = await send(runner, "list spices")

    assert _responses(events, "lister") == [{"output": ["salt", "pepper"]}]
    declaration = _declared(child_model)["finish_task"]
    assert declaration.parameters_json_schema["required"] == ["result"]
    assert declaration.parameters_json_schema["properties"]["result"]["type"] == "array"


async def test_stopping_an_invocation_inside_a_task_closes_the_task(
    session_service: BaseSessionService,
) -> None:
    started = asyncio.Event()

    async def slow(n: int) -> str:
        """Take a long time."""
        started.set()
        await asyncio.Event().wait()
        return "never"

    child_model = ScriptedModel(replies=[function_call("slow", {"n": 1}, id="slow-1")])
    child = LlmAgent(name="worker", model=child_model, mode="task", tools=[slow])
    root_model = ScriptedModel(
        replies=[function_call("worker", {"request": "work"}, id="task-1"), "Stopped it."]
    )
    runner = await start(_coordinator(root_model, child), session_service)
    signal = asyncio.Event()

    async def press_stop() -> None:
        await started.wait()
        signal.set()

    stopper = asyncio.create_task(press_stop())
    events = [
        e
        async for e in runner.run_async(
            user_id="u1", session_id="s1", new_message=user("work"), abort_signal=signal
        )
    ]
    await stopper

    sealed = [e for e in events if e.error_code == "INVOCATION_ABORTED"]
    by_call = {
        r.id: (e.author, e.isolation_scope) for e in sealed for r in e.get_function_responses()
    }
    assert by_call == {"slow-1": ("worker", "task-1"), "task-1": ("root", None)}
    # the task is closed: the next message is the coordinator's, which sees the stopped call
    assert texts(await send(runner, "ok")) == ["Stopped it."]
    last_user = [e for e in (await stored(runner)).events if e.author == "user"][-1]
    assert last_user.isolation_scope is None
    assert len(child_model.requests) == 1


class _DieBefore(BasePlugin):
    """Kills the turn right before the event answering ``name`` would be committed."""

    def __init__(self, name: str) -> None:
        super().__init__(name="die_before")
        self.target = name
        self.armed = True

    async def on_event_callback(self, *, invocation_context: Any, event: Event) -> None:
        if self.armed and any(r.name == self.target for r in event.get_function_responses()):
            self.armed = False
            raise _Crash


@pytest.mark.parametrize("mode", ["task", "single_turn"])
async def test_a_result_committed_before_the_crash_is_not_worked_out_again(
    session_service: BaseSessionService, mode: str
) -> None:
    finish = function_call("finish_task", {"result": "done"})
    child_model = ScriptedModel(replies=[finish if mode == "task" else "done"])
    child = LlmAgent(name="worker", model=child_model, mode=mode)  # type: ignore[arg-type]
    root_model = ScriptedModel(replies=[function_call("worker", {"request": "go"}), "All done."])
    plugin = _DieBefore("worker")
    app = App(name=APP, root_agent=_coordinator(root_model, child), plugins=[plugin])
    runner = Runner(app=app, session_service=session_service)
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    with pytest.raises(PluginError):
        await send(runner, "go")
    invocation_id = (await stored(runner)).events[0].invocation_id

    resumed = [
        e
        async for e in runner.run_async(user_id="u1", session_id="s1", invocation_id=invocation_id)
    ]

    assert len(child_model.requests) == 1  # its result was in the log
    assert _responses(resumed, "worker") == [{"result": "done"}]
    assert texts(resumed)[-1] == "All done."


class _Order(BaseModel):
    item: str
    quantity: int


async def test_a_delegation_whose_arguments_break_the_input_schema_is_refused(
    session_service: BaseSessionService,
) -> None:
    child_model = ScriptedModel(replies=[function_call("finish_task", {"result": "ordered"})])
    child = LlmAgent(name="orders", model=child_model, mode="task", input_schema=_Order)
    root_model = ScriptedModel(
        replies=[
            function_call("orders", {"item": "tea", "quantity": "lots"}),
            function_call("orders", {"item": "tea", "quantity": 2}),
            "Ordered.",
        ]
    )
    runner = await start(_coordinator(root_model, child), session_service)

    events = await send(runner, "two teas")

    first, second = _responses(events, "orders")
    assert "quantity" in first["error"]
    assert "lots" not in first["error"]  # the message names the field, not the value
    assert second == {"result": "ordered"}
    assert len(child_model.requests) == 1  # the sub-agent ran once, on valid arguments
    assert _sent(child_model, 0) == ['user: {"item": "tea", "quantity": 2}']
    declaration = _declared(root_model)["orders"]
    assert set(declaration.parameters_json_schema["required"]) == {"item", "quantity"}
