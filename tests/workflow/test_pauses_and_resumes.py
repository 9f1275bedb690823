"""A workflow's questions to the user, and invocations continued from their log, on every backend.

An answer comes in a later message (any replica may take it); a crashed turn is resumed with
``run_async(invocation_id=...)``. Either way the nodes whose outputs are committed do not run
again, and the others continue.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest

from adk_runtime.errors import InputValidationError
from adk_runtime.events import RequestInput
from adk_runtime.sessions import BaseSessionService
from adk_runtime.workflow import START, NodeContext, Workflow, node
from tests.backends import twin
from tests.workflow.helpers import Run, answer, message, outputs


class Crash(BaseException):
    """Stands for the process dying: nothing in the runtime catches it."""


class Counter:
    def __init__(self) -> None:
        self.runs: list[str] = []


async def test_a_question_pauses_the_workflow_and_the_answer_is_the_nodes_output(
    session_service: BaseSessionService,
) -> None:
    seen = Counter()

    def draft(node_input: str) -> str:
        seen.runs.append("draft")
        return f"draft of {node_input}"

    async def approve(node_input: str) -> AsyncGenerator[Any, None]:
        seen.runs.append("approve")
        yield RequestInput(
            interrupt_id="approval",
            message=f"Publish {node_input!r}?",
            response_schema={"type": "boolean"},
        )

    def publish(node_input: bool) -> str:
        seen.runs.append("publish")
        return "published" if node_input else "shelved"

    workflow = Workflow(name="review", edges=[(START, draft, approve, publish)])
    run = await Run(session_service, workflow).start()
    events = await run.send(message("the memo"))
    [question] = [e for e in events if e.get_function_calls()]
    [call] = question.get_function_calls()
    assert (call.id, call.name, question.long_running_tool_ids) == (
        "approval",
        "adk_request_input",
        {"approval"},
    )
    assert call.args is not None
    assert call.args["message"] == "Publish 'draft of the memo'?"
    assert question.node_info.path == "review@1/approve@1"
    assert seen.runs == ["draft", "approve"]

    # a wrong answer is refused before anything is stored
    with pytest.raises(InputValidationError, match="does not match its response_schema"):
        await run.send(answer("approval", "sure"))
    assert len((await run.session()).events) == 3  # the message, the draft, the question

    async with twin(session_service) as replica:  # another replica takes the answer
        other = Run(replica, workflow)
        other.sid = run.sid
        events = await other.send(answer("approval", True))
    assert outputs(events) == {"review@1/approve@1": True, "review@1/publish@1": "published"}
    assert {e.invocation_id for e in events} == {question.invocation_id}
    assert seen.runs == ["draft", "approve", "publish"]  # draft and approve did not run again

    # a resent answer runs nothing again
    assert outputs(await run.send(answer("approval", True))) == {}
    assert seen.runs == ["draft", "approve", "publish"]


async def test_a_rerun_node_gets_the_answers_and_may_ask_again(
    session_service: BaseSessionService,
) -> None:
    asked: list[dict[str, Any]] = []

    @node(rerun_on_resume=True)
    async def interview(ctx: NodeContext) -> AsyncGenerator[Any, None]:
        asked.append(dict(ctx.resume_inputs))
        if "name" not in ctx.resume_inputs:
            yield RequestInput(interrupt_id="name", message="Your name?")
            return
        if "age" not in ctx.resume_inputs:
            yield RequestInput(interrupt_id="age", message="Your age?")
            return
        yield f"{ctx.resume_inputs['name']} is {ctx.resume_inputs['age']}"

    run = await Run(session_service, Workflow(name="form", edges=[(START, interview)])).start()
    await run.send(message("start"))
    await run.send(answer("name", "Ada"))
    events = await run.send(answer("age", 36))
    assert outputs(events) == {"form@1/interview@1": "Ada is 36"}
    assert asked == [{}, {"name": "Ada"}, {"name": "Ada", "age": 36}]


async def test_a_run_goes_on_after_its_question_and_waits_for_every_answer(
    session_service: BaseSessionService,
) -> None:
    seen: list[str] = []

    async def form() -> AsyncGenerator[Any, None]:
        yield RequestInput(interrupt_id="name", message="Your name?")
        seen.append("after the first question")
        yield RequestInput(interrupt_id="age", message="Your age?")
        seen.append("after the second question")

    def card(node_input: dict[str, Any]) -> str:
        return f"{node_input['name']} ({node_input['age']})"

    workflow = Workflow(name="signup", edges=[(START, form, card)])
    run = await Run(session_service, workflow).start()
    first = await run.send(message("go"))
    assert [c.id for e in first for c in e.get_function_calls()] == ["name", "age"]
    assert seen == ["after the first question", "after the second question"]

    # one answer of two: the run still waits (on any replica), nothing downstream runs
    half = await run.replica(workflow).send(answer("age", 36))
    assert outputs(half) == {}
    assert [c.id for e in half for c in e.get_function_calls()] == []
    events = await run.replica(workflow).send(answer("name", "Ada"))
    assert outputs(events) == {
        "signup@1/form@1": {"name": "Ada", "age": 36},
        "signup@1/card@1": "Ada (36)",
    }
    assert {e.invocation_id for e in events} == {first[0].invocation_id}
    assert seen == ["after the first question", "after the second question"]  # no rerun


async def test_a_run_with_an_output_and_a_question_goes_on_once_answered(
    session_service: BaseSessionService,
) -> None:
    async def draft() -> AsyncGenerator[Any, None]:
        yield "the draft"
        yield RequestInput(interrupt_id="seen", message="Have you read the draft?")

    async def budget() -> AsyncGenerator[Any, None]:
        yield RequestInput(interrupt_id="budget", message="Budget?")

    def publish(node_input: str) -> str:
        return f"published {node_input}"

    def file_budget(node_input: int) -> None:
        del node_input  # no output: publish's is the workflow's

    workflow = Workflow(
        name="memo", edges=[(START, (draft, budget)), (draft, publish), (budget, file_budget)]
    )
    run = await Run(session_service, workflow).start()
    first = await run.send(message("go"))
    assert outputs(first) == {"memo@1/draft@1": "the draft"}  # nothing downstream yet
    # another question's answer continues the invocation: the draft's run still waits
    assert outputs(await run.send(answer("budget", 100))) == {"memo@1/budget@1": 100}
    events = await run.send(answer("seen", True))
    assert outputs(events) == {"memo@1/publish@1": "published the draft"}


async def test_a_rerun_node_that_asks_two_questions_runs_again_at_each_answer(
    session_service: BaseSessionService,
) -> None:
    given: list[dict[str, Any]] = []

    @node(rerun_on_resume=True)
    async def form(ctx: NodeContext) -> AsyncGenerator[Any, None]:
        given.append(dict(ctx.resume_inputs))
        missing = [rid for rid in ("name", "age") if rid not in ctx.resume_inputs]
        for request_id in missing:
            yield RequestInput(interrupt_id=request_id, message=f"Your {request_id}?")
        if not missing:
            yield f"{ctx.resume_inputs['name']} is {ctx.resume_inputs['age']}"

    run = await Run(session_service, Workflow(name="form", edges=[(START, form)])).start()
    first = await run.send(message("go"))
    assert [c.id for e in first for c in e.get_function_calls()] == ["name", "age"]
    again = await run.send(answer("name", "Ada"))
    assert [c.id for e in again for c in e.get_function_calls()] == ["age"]  # asked again
    events = await run.send(answer("age", 36))
    assert outputs(events)["form@1/form@1"] == "Ada is 36"
    assert given == [{}, {"name": "Ada"}, {"name": "Ada", "age": 36}]


async def test_parallel_questions_wait_for_their_own_answers(
    session_service: BaseSessionService,
) -> None:
    async def ask_a() -> AsyncGenerator[Any, None]:
        yield RequestInput(interrupt_id="a", message="A?")

    async def ask_b() -> AsyncGenerator[Any, None]:
        yield RequestInput(interrupt_id="b", message="B?")

    def both(node_input: dict[str, Any]) -> str:
        return f"{node_input['ask_a']}+{node_input['ask_b']}"

    from adk_runtime.workflow import JoinNode

    workflow = Workflow(name="pair", edges=[(START, (ask_a, ask_b), JoinNode(name="join"), both)])
    run = await Run(session_service, workflow).start()
    first = await run.send(message("go"))
    assert sorted(c.id for e in first for c in e.get_function_calls()) == ["a", "b"]
    assert outputs(await run.send(answer("b", "bee"))) == {"pair@1/ask_b@1": "bee"}
    events = await run.send(answer("a", "ay"))
    assert outputs(events)["pair@1/both@1"] == "ay+bee"


async def test_a_crashed_turn_resumes_without_running_finished_nodes_again(
    session_service: BaseSessionService,
) -> None:
    seen = Counter()
    crash = {"armed": True}

    def fetch(ctx: NodeContext) -> str:
        seen.runs.append("fetch")
        ctx.state["fetched"] = True
        return "data"

    def transform(node_input: str) -> str:
        seen.runs.append("transform")
        if crash["armed"]:
            crash["armed"] = False
            raise Crash
        return node_input.upper()

    def save(node_input: str) -> str:
        seen.runs.append("save")
        return f"saved {node_input}"

    inner = Workflow(name="inner", edges=[(START, transform)])
    workflow = Workflow(name="etl", edges=[(START, fetch, inner, save)])
    run = await Run(session_service, workflow).start()
    with pytest.raises(Crash):
        await run.send(message("go"))
    session = await run.session()
    invocation = session.events[0].invocation_id
    [interrupted] = await session_service.list_interrupted_invocations(app_name="etl")
    assert interrupted.invocation_id == invocation

    async with twin(session_service) as replica:
        other = Run(replica, workflow)
        other.sid = run.sid
        events = await other.send(invocation_id=invocation)

    assert seen.runs == ["fetch", "transform", "transform", "save"]
    assert outputs(events) == {"etl@1/inner@1/transform@1": "DATA", "etl@1/save@1": "saved DATA"}
    session = await run.session()
    assert session.state == {"fetched": True}
    assert {e.invocation_id for e in session.events} == {invocation}
    assert await session_service.list_interrupted_invocations(app_name="etl") == []


async def test_an_abort_stops_running_nodes_and_seals_the_invocation(
    session_service: BaseSessionService,
) -> None:
    started = asyncio.Event()
    ended: list[str] = []

    async def quick() -> str:
        return "quick"

    async def slow() -> str:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            ended.append("cancelled")
            raise
        return "slow"

    workflow = Workflow(name="stoppable", edges=[(START, quick, slow)])
    run = await Run(session_service, workflow).start()
    signal = asyncio.Event()

    async def press_stop() -> None:
        await started.wait()
        signal.set()

    stopper = asyncio.create_task(press_stop())
    events = await run.send(message("go"), abort_signal=signal)
    await stopper
    assert ended == ["cancelled"]
    assert outputs(events) == {"stoppable@1/quick@1": "quick"}
    assert events[-1].error_code == "INVOCATION_ABORTED"
    session = await run.session()
    assert session.events[-1].error_code == "INVOCATION_ABORTED"
    assert await session_service.list_interrupted_invocations(app_name="stoppable") == []


async def test_an_agent_answer_committed_just_before_a_crash_is_the_nodes_output(
    session_service: BaseSessionService,
) -> None:
    from adk_runtime.agents import LlmAgent
    from adk_runtime.apps import App
    from adk_runtime.plugins import BasePlugin
    from adk_runtime.runners import Runner
    from adk_runtime.testing import ScriptedModel

    class DieBeforeTheOutput(BasePlugin):
        """The process dies after the agent's answer is stored, before the node's output."""

        def __init__(self) -> None:
            super().__init__("die")
            self.armed = True

        async def on_event_callback(self, *, invocation_context: Any, event: Any) -> None:
            if self.armed and event.output is not None and event.node_info.name == "writer":
                self.armed = False
                raise Crash

    model = ScriptedModel(replies=["the answer"])  # a second model call would exhaust it
    seen: list[str] = []

    def after(node_input: str) -> str:
        seen.append(node_input)
        return "after"

    workflow = Workflow(name="gap", edges=[(START, LlmAgent(name="writer", model=model), after)])
    app = App(name="gap", root_agent=workflow, plugins=[DieBeforeTheOutput()])
    run = await Run(session_service, workflow).start()
    run.runner = Runner(app=app, session_service=session_service)
    with pytest.raises(Crash):
        await run.send(message("go"))
    invocation = (await run.session()).events[0].invocation_id
    events = await run.send(invocation_id=invocation)
    assert outputs(events) == {"gap@1/writer@1": "the answer", "gap@1/after@1": "after"}
    assert seen == ["the answer"]
    assert len(model.requests) == 1


async def test_a_resumed_run_replays_completions_in_the_order_they_were_committed(
    session_service: BaseSessionService,
) -> None:
    seen: list[str] = []
    crash = {"armed": True}

    async def slow() -> str:
        await asyncio.sleep(0.05)
        return "slow"

    async def fast() -> str:
        return "fast"

    def each(node_input: str) -> str:
        seen.append(node_input)
        if node_input == "slow" and crash["armed"]:
            crash["armed"] = False
            raise Crash
        return f"handled {node_input}"

    # `each` is not a JoinNode: it runs once per arrival, fast's first (each@1), slow's second
    workflow = Workflow(name="arrivals", edges=[(START, (slow, fast)), (slow, each), (fast, each)])
    run = await Run(session_service, workflow).start()
    with pytest.raises(Crash):
        await run.send(message("go"))
    invocation = (await run.session()).events[0].invocation_id
    events = await run.send(invocation_id=invocation)
    # on resume each@1 (fast's) is in the log; each@2 runs again with slow's output, as before
    assert seen == ["fast", "slow", "slow"]
    assert outputs(events) == {"arrivals@1/each@2": "handled slow"}
    stored = outputs((await run.session()).events)
    assert stored["arrivals@1/each@1"] == "handled fast"


async def test_a_node_that_requires_confirmation_asks_and_obeys_the_answer(
    session_service: BaseSessionService,
) -> None:
    deleted: list[str] = []

    @node(require_confirmation=lambda path: path.startswith("/prod"))
    def delete(path: str) -> str:
        deleted.append(path)
        return f"deleted {path}"

    workflow = Workflow(name="cleanup", edges=[(START, delete)])

    # the predicate says no: it runs without asking
    run = await Run(session_service, workflow).start()
    events = await run.send(message("go"), state_delta={"path": "/tmp/x"})
    assert outputs(events) == {"cleanup@1/delete@1": "deleted /tmp/x"}

    # it says yes: the question names the call; a rejection is the output, nothing deleted
    run = await Run(session_service, workflow).start()
    first = await run.send(message("go"), state_delta={"path": "/prod/db"})
    [call] = [c for e in first for c in e.get_function_calls()]
    assert call.id == "wf_tool_confirmation:cleanup@1/delete@1"
    assert call.args is not None
    assert call.args["payload"] == {"tool_name": "delete", "args": {"path": "/prod/db"}}
    with pytest.raises(InputValidationError, match="does not match its response_schema"):
        await run.send(answer(call.id, "yes please"))
    events = await run.send(answer(call.id, {"confirmed": False}))
    assert outputs(events) == {"cleanup@1/delete@1": {"error": "This tool call is rejected."}}
    assert deleted == ["/tmp/x"]

    # approved, on another replica
    run = await Run(session_service, workflow).start()
    first = await run.send(message("go"), state_delta={"path": "/prod/logs"})
    [call] = [c for e in first for c in e.get_function_calls()]
    async with twin(session_service) as replica:
        other = Run(replica, workflow)
        other.sid = run.sid
        events = await other.send(answer(call.id, {"confirmed": True}))
    assert outputs(events) == {"cleanup@1/delete@1": "deleted /prod/logs"}
    assert deleted == ["/tmp/x", "/prod/logs"]


def test_require_confirmation_is_for_function_nodes_that_run_again() -> None:
    from adk_runtime.agents import LlmAgent
    from adk_runtime.testing import ScriptedModel
    from adk_runtime.workflow import FunctionNode, WorkflowConfigurationError

    def act() -> str:
        return "done"

    with pytest.raises(WorkflowConfigurationError, match="needs rerun_on_resume=True"):
        FunctionNode(act, require_confirmation=True)
    assert node(act, require_confirmation=True).rerun_on_resume is True
    agent = LlmAgent(name="helper", model=ScriptedModel(replies=["x"]))
    with pytest.raises(WorkflowConfigurationError, match="applies to function nodes"):
        node(agent, require_confirmation=True)


def _same_node_twice(active: list[int], peak: list[int]) -> Workflow:
    """a and b, in parallel, both trigger ask (no join): one trigger at a time."""

    def a() -> str:
        return "from_a"

    def b() -> str:
        return "from_b"

    @node(rerun_on_resume=True)
    async def ask(ctx: NodeContext, node_input: str) -> AsyncGenerator[Any, None]:
        active.append(1)
        peak.append(len(active))
        await asyncio.sleep(0.01)
        active.pop()
        question = f"q_{node_input}"
        if question not in ctx.resume_inputs:
            yield RequestInput(interrupt_id=question, message=f"About {node_input}?")
            return
        yield f"{node_input}: {ctx.resume_inputs[question]}"

    return Workflow(name="intake", edges=[(START, (a, b), ask)])


async def test_a_node_triggered_twice_runs_its_triggers_one_at_a_time_across_pauses(
    session_service: BaseSessionService,
) -> None:
    """As in google-adk: the second trigger waits while the first run waits for the user,
    and runs once that is answered (on any replica), in the order the triggers came."""
    active: list[int] = []
    peak: list[int] = []
    run = await Run(session_service, _same_node_twice(active, peak)).start()
    first = await run.send(message("go"))
    asked = [c.id for e in first for c in e.get_function_calls()]
    assert asked == ["q_from_a"]  # not both at once

    replica = run.replica(_same_node_twice(active, peak))
    second = await replica.send(answer("q_from_a", "yes"), invocation_id=first[0].invocation_id)
    assert outputs(second)["intake@1/ask@1"] == "from_a: yes"
    assert [c.id for e in second for c in e.get_function_calls()] == ["q_from_b"]

    third = await run.send(answer("q_from_b", "no"), invocation_id=first[0].invocation_id)
    assert outputs(third)["intake@1/ask@2"] == "from_b: no"
    assert max(peak) == 1  # never two runs of the node at once
