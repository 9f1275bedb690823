"""``mode="task"`` agents as workflow nodes: the result, and questions to the user, on every
backend."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing.scripted_model import ScriptedModel, function_call
from adk_runtime.workflow import START, BaseNode, JoinNode, NodeContext, Workflow, node
from tests.llm.helpers import sent
from tests.workflow.helpers import Run, answer, message, outputs


def _sent(request: LlmRequest) -> list[str]:
    return sent(request.contents)


def _questions(events: list[Event]) -> list[Any]:
    return [
        call
        for event in events
        for call in event.get_function_calls()
        if call.name == "adk_request_input"
    ]


class _Notes:
    model: ScriptedModel | None = None


def _booking(
    booker_replies: list[Any], *, after: list[str] | None = None, notes: _Notes | None = None
) -> tuple[Workflow, ScriptedModel, list[str]]:
    """brief → booker (a task agent) → confirm (→ notes, an agent given ``after``'s replies);
    ``confirm`` records the inputs it got."""
    confirmed: list[str] = []

    def brief(node_input: str) -> str:
        return f"Book: {node_input}"

    def confirm(node_input: dict[str, str]) -> str:
        confirmed.append(node_input["result"])  # the default result schema: {"result": text}
        return f"confirmed {node_input['result']}"

    model = ScriptedModel(replies=booker_replies)
    booker = LlmAgent(name="booker", model=model, mode="task", output_key="booking")
    nodes: list[Any] = [brief, booker, confirm]
    if after:
        notes_model = ScriptedModel(replies=after)
        if notes is not None:
            notes.model = notes_model
        nodes.append(LlmAgent(name="notes", model=notes_model))
    return Workflow(name="booking", edges=[(START, *nodes)]), model, confirmed


async def test_a_task_node_hands_its_result_downstream(
    session_service: BaseSessionService,
) -> None:
    workflow, model, confirmed = _booking([function_call("finish_task", {"result": "table 7"})])
    run = await Run(session_service, workflow).start()
    events = await run.send(message("dinner"))

    assert outputs(events)["booking@1/booker@1"] == {"result": "table 7"}
    assert confirmed == ["table 7"]
    assert (await run.session()).state["booking"] == {"result": "table 7"}  # its output_key
    assert _questions(events) == []
    assert _sent(model.requests[0]) == ["user: Book: dinner"]


async def test_a_task_node_that_asks_waits_for_the_users_plain_reply_on_any_replica(
    session_service: BaseSessionService,
) -> None:
    replies = [
        "For how many people?",
        function_call("finish_task", {"result": "table for 4"}),
    ]
    workflow, _model, confirmed = _booking(list(replies), after=["Noted."])
    run = await Run(session_service, workflow).start()
    first = await run.send(message("dinner"))

    # the agent's text is its question; the node waits, nothing downstream ran
    assert [e.content.parts[0].text for e in first if e.author == "booker" and e.content][:1] == [
        "For how many people?"
    ]
    (question,) = _questions(first)
    assert question.args["message"] == "For how many people?"
    assert question.id.startswith("wf_task_input:")
    assert confirmed == []
    assert "booking@1/booker@1" not in outputs(first)

    # another replica (a fresh workflow and Runner on the same store) gets the reply
    notes = _Notes()
    _workflow2, model2, confirmed2 = _booking(replies[1:], after=["Noted."], notes=notes)
    replica = run.replica(_workflow2)
    second = await replica.send(message("four"))

    assert outputs(second)["booking@1/booker@1"] == {"result": "table for 4"}
    assert confirmed2 == ["table for 4"]
    # the task agent saw its task, its question and the reply, not the question's call
    assert _sent(model2.requests[0]) == [
        "user: Book: dinner",
        "model: For how many people?",
        "user: four",
    ]
    session = await run.session()
    reply = next(
        e for e in session.events if e.author == "user" and e.content and _text(e) == "four"
    )
    assert reply.node_info.path == "booking@1/booker@1"
    assert reply.branch == "booking.booker"
    # one invocation: the reply continued the paused run, it did not start another
    assert {e.invocation_id for e in session.events} == {first[0].invocation_id}
    # the agent node after it never sees the task's conversation
    assert notes.model is not None
    notes_request = notes.model.requests[0]
    assert "user: four" not in _sent(notes_request)
    assert "model: For how many people?" not in _sent(notes_request)


async def test_a_task_nodes_question_answered_with_a_function_response(
    session_service: BaseSessionService,
) -> None:
    workflow, model, confirmed = _booking(
        ["Which day?", function_call("finish_task", {"result": "Friday"})]
    )
    run = await Run(session_service, workflow).start()
    (question,) = _questions(await run.send(message("lunch")))

    events = await run.send(answer(question.id, "friday"))

    assert outputs(events)["booking@1/booker@1"] == {"result": "Friday"}
    assert confirmed == ["Friday"]
    # the answer reached the agent as the user's words
    assert _sent(model.requests[1]) == ["user: Book: lunch", "model: Which day?", "user: friday"]


async def test_a_task_node_may_ask_again(session_service: BaseSessionService) -> None:
    workflow, model, confirmed = _booking(
        [
            "Which day?",
            "And for how many?",
            function_call("finish_task", {"result": "Friday, 2"}),
        ]
    )
    run = await Run(session_service, workflow).start()
    first = await run.send(message("lunch"))
    second = await run.send(message("friday"))
    assert confirmed == []
    assert [q.args["message"] for q in _questions(second)] == ["And for how many?"]
    assert _questions(first)[0].id != _questions(second)[0].id

    third = await run.send(message("two"))

    assert confirmed == ["Friday, 2"]
    assert outputs(third)["booking@1/booker@1"] == {"result": "Friday, 2"}
    assert _sent(model.requests[2])[-3:] == [
        "user: friday",
        "model: And for how many?",
        "user: two",
    ]


async def test_a_reply_cut_short_by_a_crash_is_resumed(
    session_service: BaseSessionService,
) -> None:
    """The reply is committed, then the process dies before the agent's model answers: the
    invocation's resume hands the reply to the agent, once."""

    class _Crash(Exception):
        pass

    def crash(request: Any) -> Any:
        raise _Crash

    workflow, model, confirmed = _booking(
        ["Which day?", crash, function_call("finish_task", {"result": "Monday"})]
    )
    run = await Run(session_service, workflow).start()
    first = await run.send(message("lunch"))
    with pytest.raises(_Crash):
        await run.send(message("monday"))

    resumed = [
        e
        async for e in run.runner.run_async(
            user_id="u", session_id=run.sid, invocation_id=first[0].invocation_id
        )
    ]

    assert outputs(resumed)["booking@1/booker@1"] == {"result": "Monday"}
    assert confirmed == ["Monday"]
    assert _sent(model.requests[-1]) == ["user: Book: lunch", "model: Which day?", "user: monday"]
    session = await run.session()
    user_said = [_text(e) for e in session.events if e.author == "user"]
    assert user_said == ["lunch", "Book: lunch", "monday"]  # nothing committed twice


async def test_a_plain_reply_is_refused_when_two_task_nodes_wait(
    session_service: BaseSessionService,
) -> None:
    def split(node_input: str) -> str:
        return node_input

    flights = LlmAgent(
        name="flights",
        model=ScriptedModel(
            replies=["Which airport?", function_call("finish_task", {"result": "LHR"})]
        ),
        mode="task",
    )
    hotels = LlmAgent(
        name="hotels",
        model=ScriptedModel(
            replies=["Which area?", function_call("finish_task", {"result": "Soho"})]
        ),
        mode="task",
    )
    both = JoinNode(name="both")
    workflow = Workflow(
        name="trip", edges=[(START, split), (split, flights, both), (split, hotels, both)]
    )
    run = await Run(session_service, workflow).start()
    first = await run.send(message("London"))
    questions = {q.args["message"]: q for q in _questions(first)}
    assert set(questions) == {"Which airport?", "Which area?"}
    stored = len((await run.session()).events)

    with pytest.raises(InputValidationError, match="2 task agent nodes wait"):
        await run.send(message("Heathrow"))
    assert len((await run.session()).events) == stored  # nothing written

    events = await run.send(answer(questions["Which airport?"].id, "Heathrow"))
    assert outputs(events)["trip@1/flights@1"] == {"result": "LHR"}
    # the other still waits, and now a plain reply is its
    events = await run.send(message("Soho please"))
    assert outputs(events)["trip@1/hotels@1"] == {"result": "Soho"}
    assert outputs(events)["trip@1/both@1"] == {
        "flights": {"result": "LHR"},
        "hotels": {"result": "Soho"},
    }


def _text(event: Event) -> str:
    parts = event.content.parts if event.content is not None else None
    return "".join(p.text or "" for p in parts or [])


async def test_a_task_agent_run_as_a_child_asks_through_its_parent(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(
        replies=["Which city?", function_call("finish_task", {"result": "Lisbon"})]
    )
    scout = LlmAgent(name="scout", model=model, mode="task")

    @node(rerun_on_resume=True)
    async def plan(ctx: NodeContext, node_input: str) -> Any:
        found = await ctx.run_node(scout, f"Find a city for {node_input}")
        return f"trip to {found['result']}"

    run = await Run(session_service, Workflow(name="trips", edges=[(START, plan)])).start()
    first = await run.send(message("a weekend"))
    (question,) = _questions(first)
    assert question.args["message"] == "Which city?"
    assert "trips@1/plan@1" not in outputs(first)

    events = await run.send(message("somewhere sunny"))

    assert outputs(events)["trips@1/plan@1"] == "trip to Lisbon"
    assert _sent(model.requests[1]) == [
        "user: Find a city for a weekend",
        "model: Which city?",
        "user: somewhere sunny",
    ]


async def test_a_task_node_that_ends_without_finishing_waits_for_the_user(
    session_service: BaseSessionService,
) -> None:
    """No ``finish_task`` and nothing said: the node still waits (google-adk: it waits for
    its output); downstream nodes never get a missing result."""
    silent = LlmResponse(content=types.Content(role="model", parts=[]))
    workflow, model, confirmed = _booking(
        [silent, function_call("finish_task", {"result": "done"})]
    )
    run = await Run(session_service, workflow).start()
    first = await run.send(message("lunch"))
    (question,) = _questions(first)
    assert question.args["message"] is None
    assert confirmed == []

    events = await run.send(message("carry on"))
    assert outputs(events)["booking@1/booker@1"] == {"result": "done"}
    assert confirmed == ["done"]
    assert _sent(model.requests[1])[-1] == "user: carry on"


async def test_after_a_stop_a_plain_message_starts_a_new_run(
    session_service: BaseSessionService,
) -> None:
    """The stop seals the waiting question: the next message is not a reply to it."""
    asked = asyncio.Event()

    runs: list[str] = []

    async def slow(node_input: str) -> str:
        runs.append(node_input)
        if len(runs) == 1:  # the first run is stopped while this waits
            await asyncio.Event().wait()
        return "done"

    def ask_first(request: LlmRequest) -> str:
        asked.set()
        return "Which day?"

    booker = LlmAgent(
        name="booker", model=ScriptedModel(replies=[ask_first, "Which day, again?"]), mode="task"
    )

    def split(node_input: str) -> str:
        return node_input

    both = JoinNode(name="both")
    workflow = Workflow(
        name="desk", edges=[(START, split), (split, booker, both), (split, slow, both)]
    )
    run = await Run(session_service, workflow).start()
    signal = asyncio.Event()

    async def press_stop() -> None:
        await asked.wait()
        await asyncio.sleep(0.05)  # the question is committed
        signal.set()

    stopper = asyncio.create_task(press_stop())
    first = await run.send(message("lunch"), abort_signal=signal)
    await stopper
    assert _questions(first)

    second = await run.send(message("friday"))

    assert second[0].invocation_id != first[0].invocation_id  # a new run, not a reply
    assert [q.args["message"] for q in _questions(second)] == ["Which day, again?"]
    assert runs == ["lunch", "friday"]


async def test_a_reply_stored_just_before_the_process_dies_is_resumed(
    session_service: BaseSessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found by the SIGKILL suite: the reply was committed, then the process died before the
    session's claim named the paused invocation as the open one, so it could not be
    resumed and the reply was orphaned."""

    class _Died(Exception):
        pass

    workflow, _model, confirmed = _booking(
        ["Which day?", function_call("finish_task", {"result": "Sunday"})]
    )
    run = await Run(session_service, workflow).start()
    first = await run.send(message("brunch"))
    commit = session_service.commit_event

    async def commit_then_die(session: Any, event: Event) -> Any:
        result = await commit(session, event)
        if event.author == "user":
            raise _Died
        return result

    monkeypatch.setattr(session_service, "commit_event", commit_then_die)
    with pytest.raises(_Died):
        await run.send(message("sunday"))
    monkeypatch.undo()

    events = await run.send(invocation_id=first[0].invocation_id)

    assert outputs(events)["booking@1/booker@1"] == {"result": "Sunday"}
    assert confirmed == ["Sunday"]


class _Waits(BaseNode):
    """Yields nothing: with ``wait_for_output`` its run ends waiting for an output."""

    wait_for_output: bool = True

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        return
        yield


@pytest.mark.parametrize("child_kind", ["workflow", "wait_for_output"])
async def test_raise_on_wait_stops_the_parent_at_a_child_that_ended_without_output(
    session_service: BaseSessionService, child_kind: str
) -> None:
    def nothing(node_input: Any) -> None:
        return None

    child: BaseNode = (
        Workflow(name="inner", edges=[(START, nothing)])
        if child_kind == "workflow"
        else _Waits(name="inner")
    )
    reached: list[Any] = []
    received: list[Any] = []

    @node(rerun_on_resume=True)
    async def parent(ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        plain = await ctx.run_node(child, "x")  # returns None, the parent goes on
        reached.append(("plain", plain))
        value = await ctx.run_node(child, "x", raise_on_wait=True)
        reached.append(("raised", value))  # never: the run ends at the call above
        yield "parent output"

    def after(node_input: Any) -> str:
        received.append(node_input)
        return "after ran"

    run = await Run(session_service, Workflow(name="outer", edges=[(START, parent, after)])).start()
    events = await run.send(message("go"))

    assert reached == [("plain", None)]
    done = outputs(events)
    assert "outer@1/parent@1" not in done  # no output: the parent stopped at the child
    assert done["outer@1/after@1"] == "after ran"
    assert received == [None]  # as google-adk: the stopped parent completes with none
    stored = outputs((await run.session()).events)
    assert "outer@1/parent@1" not in stored


async def test_raise_on_wait_returns_an_output_and_waits_with_a_task_agent_that_asks(
    session_service: BaseSessionService,
) -> None:
    """google-adk's pattern: a task agent in a nested workflow, driven with raise_on_wait."""
    replies = ["Please provide the secret code:", function_call("finish_task", {"result": "ok"})]
    model = ScriptedModel(replies=list(replies))
    inner = Workflow(
        name="inner",
        edges=[(START, LlmAgent(name="asker", model=model, mode="task"))],
    )
    runs: list[str] = []

    @node(rerun_on_resume=True)
    async def driver(ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        runs.append("driver")
        result = await ctx.run_node(inner, "start", raise_on_wait=True)
        yield f"outer: {result['result']}"

    run = await Run(session_service, Workflow(name="outer", edges=[(START, driver)])).start()
    first = await run.send(message("hello"))
    (question,) = _questions(first)
    assert question.args["message"] == "Please provide the secret code:"
    assert "outer@1/driver@1" not in outputs(first)

    second = await run.send(message("secret_code_123"))
    assert outputs(second)["outer@1/driver@1"] == "outer: ok"
    assert runs == ["driver", "driver"]
    assert _sent(model.requests[1])[-1] == "user: secret_code_123"
