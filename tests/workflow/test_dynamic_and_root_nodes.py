"""Child runs (``await ctx.run_node(...)``), a single node at the root, and what a root
node's message may carry, on every backend."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.genai import types
from pydantic import ValidationError

from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, RequestInput
from adk_runtime.sessions import BaseSessionService
from adk_runtime.workflow import (
    START,
    BaseNode,
    Node,
    NodeContext,
    Workflow,
    WorkflowConfigurationError,
    WorkflowDataError,
    node,
)
from adk_runtime.workflow._errors import DynamicNodeFailError
from tests.workflow.helpers import Run, answer, message, outputs


class Crash(BaseException):
    """Stands for the process dying: nothing in the runtime catches it."""


async def test_child_runs_are_numbered_replayed_and_can_give_the_parent_its_output(
    session_service: BaseSessionService,
) -> None:
    runs: list[str] = []
    crash = {"armed": True}

    def square(node_input: int) -> int:
        runs.append(f"square {node_input}")
        return node_input * node_input

    async def confirm(node_input: int) -> AsyncGenerator[Any, None]:
        runs.append("confirm")
        yield RequestInput(interrupt_id="go-on", message=f"Keep {node_input}?")

    def finish(node_input: Any) -> str:
        runs.append("finish")
        if crash["armed"]:
            crash["armed"] = False
            raise Crash
        return f"kept {node_input}"

    @node(rerun_on_resume=True)
    async def plan(ctx: NodeContext) -> Any:
        first = await ctx.run_node(square, 3)
        second = await ctx.run_node(square, 4)
        approved = await ctx.run_node(confirm, first + second)
        return await ctx.run_node(finish, approved, use_as_output=True)

    run = await Run(session_service, Workflow(name="planner", edges=[(START, plan)])).start()
    first_turn = await run.send(message("go"))
    assert outputs(first_turn) == {
        "planner@1/plan@1/square@1": 9,
        "planner@1/plan@1/square@2": 16,
    }
    with pytest.raises(Crash):  # the answer's turn dies inside finish
        await run.send(answer("go-on", "yes"))
    invocation = first_turn[0].invocation_id
    events = await run.send(invocation_id=invocation)  # resumed: finish runs again, alone
    assert runs == ["square 3", "square 4", "confirm", "finish", "finish"]
    assert outputs(events) == {"planner@1/plan@1/finish@1": "kept yes"}
    [final] = [e for e in events if e.output is not None]
    assert final.node_info.output_for == [
        "planner@1/plan@1/finish@1",
        "planner@1/plan@1",
        "planner@1",
    ]
    stored = outputs((await run.session()).events)
    assert "planner@1/plan@1" not in stored  # the parent's output is the child's event


async def test_a_failed_child_can_be_caught_and_escapes_as_its_own_error(
    session_service: BaseSessionService,
) -> None:
    def risky(node_input: str) -> str:
        if node_input == "bad":
            raise LookupError("no such thing")
        return node_input

    caught: list[DynamicNodeFailError] = []

    async def careful(ctx: NodeContext) -> str:
        try:
            await ctx.run_node(risky, "bad")
        except DynamicNodeFailError as failure:
            caught.append(failure)
        return await ctx.run_node(risky, "good")

    run = await Run(session_service, node(careful)).start()  # a single node at the root
    assert outputs(await run.send(message("go"))) == {"careful@1/risky@2": "good"} | {
        "careful@1": "good"
    }
    [failure] = caught
    assert isinstance(failure.error, LookupError)
    assert failure.error_node_path == "careful@1/risky@1"

    async def careless(ctx: NodeContext) -> str:
        return await ctx.run_node(risky, "bad")

    run = await Run(session_service, node(careless)).start()
    with pytest.raises(LookupError, match="no such thing"):
        await run.send(message("go"))


async def test_child_run_ids_and_output_delegation_are_checked(
    session_service: BaseSessionService,
) -> None:
    def child() -> str:
        return "c"

    for bad, error in [
        ("7", "must contain non-numeric characters"),
        ("a/b", "no '/', '@' or whitespace"),
        ("x@2", "no '/', '@' or whitespace"),
        ("two words", "no '/', '@' or whitespace"),
        ("", "1 to 64 characters"),
        ("x" * 65, "1 to 64 characters"),
    ]:

        async def numeric(ctx: NodeContext, bad: str = bad) -> None:
            await ctx.run_node(child, run_id=bad)

        run = await Run(session_service, node(numeric)).start()
        with pytest.raises(WorkflowDataError, match=error):
            await run.send(message("go"))
        assert outputs((await run.session()).events) == {}

    async def twice(ctx: NodeContext) -> None:
        await ctx.run_node(child, use_as_output=True)
        await ctx.run_node(child, use_as_output=True, run_id="again")

    run = await Run(session_service, node(twice)).start()
    with pytest.raises(WorkflowDataError, match="use_as_output=True may be given once"):
        await run.send(message("go"))
    assert outputs((await run.session()).events) == {"twice@1/child@1": "c"}

    async def named(ctx: NodeContext) -> str:
        return await ctx.run_node(child, run_id="order-17")

    run = await Run(session_service, node(named)).start()
    assert outputs(await run.send(message("go")))["named@1/child@order-17"] == "c"


async def test_a_root_node_runs_again_with_the_answers_and_the_first_message(
    session_service: BaseSessionService,
) -> None:
    seen: list[Any] = []

    class Asker(BaseNode):  # rerun_on_resume is False, but a root node always runs again
        async def _run_impl(
            self, *, ctx: NodeContext, node_input: Any
        ) -> AsyncGenerator[Any, None]:
            seen.append((ctx.user_content.parts[0].text, dict(ctx.resume_inputs)))  # type: ignore[union-attr]
            if "q" in ctx.resume_inputs:
                yield f"{node_input.parts[0].text}: {ctx.resume_inputs['q']}"
                return
            yield RequestInput(interrupt_id="q", message="?")

    run = await Run(session_service, Asker(name="asker")).start()
    await run.send(message("original"))
    events = await run.send(answer("q", 5))
    assert outputs(events) == {"asker@1": "original: 5"}
    assert seen == [("original", {}), ("original", {"q": 5})]


async def test_context_route_and_output_are_committed_and_survive_a_pause(
    session_service: BaseSessionService,
) -> None:
    class Gate(BaseNode):
        async def _run_impl(
            self, *, ctx: NodeContext, node_input: Any
        ) -> AsyncGenerator[Any, None]:
            ctx.route = "open"
            yield RequestInput(interrupt_id="gate", message="open?")

    def opened(node_input: Any) -> str:
        return f"opened with {node_input}"

    def quiet(ctx: NodeContext) -> None:
        ctx.output = {"set": "on the context"}

    gate = Gate(name="gate")
    workflow = Workflow(
        name="gates", edges=[(START, gate), (gate, {"open": opened}), (opened, quiet)]
    )
    run = await Run(session_service, workflow).start()
    await run.send(message("go"))
    events = await run.send(answer("gate", "key"))
    assert outputs(events) == {
        "gates@1/gate@1": "key",
        "gates@1/opened@1": "opened with key",
        "gates@1/quiet@1": {"set": "on the context"},
    }
    assert [e.actions.route for e in events if e.node_info.name == "gate"] == ["open"]


@pytest.mark.parametrize(
    ("parts", "error"),
    [
        (
            [types.Part(text="hi"), answer("x", 1).parts[0]],  # type: ignore[index]
            "cannot contain both function responses and text",
        ),
        ([answer("no-such-call", 1).parts[0]], "Function call not found"),  # type: ignore[index]
    ],
)
async def test_a_bad_answer_to_a_root_node_is_refused_and_nothing_is_stored(
    session_service: BaseSessionService, parts: list[types.Part], error: str
) -> None:
    def echo(node_input: Any) -> Any:
        return "echo"

    run = await Run(session_service, node(echo)).start()
    with pytest.raises(InputValidationError, match=error):
        await run.send(types.Content(role="user", parts=parts))
    assert (await run.session()).events == []


async def test_answers_to_two_invocations_in_one_message_are_refused(
    session_service: BaseSessionService,
) -> None:
    count = [0]

    async def ask() -> AsyncGenerator[Any, None]:
        count[0] += 1
        yield Event(
            content=types.Content(
                role="model",
                parts=[types.Part(function_call=types.FunctionCall(id=f"fc-{count[0]}", name="t"))],
            ),
            long_running_tool_ids={f"fc-{count[0]}"},
        )

    run = await Run(session_service, Workflow(name="asks", edges=[(START, ask)])).start()
    await run.send(message("one"))
    await run.send(message("two"))
    stored = len((await run.session()).events)
    both = types.Content(
        role="user",
        parts=[answer("fc-1", 1, name="t").parts[0], answer("fc-2", 2, name="t").parts[0]],  # type: ignore[index]
    )
    with pytest.raises(InputValidationError, match="resolve to multiple invocations"):
        await run.send(both)
    assert len((await run.session()).events) == stored


async def test_a_parallel_worker_runs_each_item_and_resumes_only_the_unfinished(
    session_service: BaseSessionService,
) -> None:
    running = [0]
    peak = [0]
    runs: list[int] = []
    crash = {"on": 4}

    @node(parallel_worker=True, max_parallel_workers=2)
    async def square(node_input: int) -> int:
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        try:
            await asyncio.sleep(0.01 * (5 - node_input))  # later items finish first
            runs.append(node_input)
            if node_input == crash["on"]:
                crash["on"] = -1
                raise Crash
            return node_input * node_input
        finally:
            running[0] -= 1

    def numbers(node_input: Any) -> list[int]:
        return [1, 2, 3, 4]

    def total(node_input: list[int]) -> int:
        return sum(node_input)

    workflow = Workflow(name="squares", edges=[(START, numbers, square, total)])
    run = await Run(session_service, workflow).start()
    with pytest.raises(Crash):
        await run.send(message("go"))
    stored = outputs((await run.session()).events)
    invocation = (await run.session()).events[0].invocation_id
    events = await run.send(invocation_id=invocation)
    assert outputs(events)["squares@1/square@1"] == [1, 4, 9, 16]  # in the items' order
    assert outputs(events)["squares@1/total@1"] == 30
    assert peak[0] == 2
    # item n is run n; item 4 starts only once another item's output is committed
    finished_before = {
        int(path.rpartition("@")[2]) for path in stored if path.startswith("squares@1/square@1/")
    }
    assert finished_before
    assert 4 not in finished_before
    assert runs.count(4) == 2  # it crashed, and ran again on resume
    for n in (1, 2, 3):  # committed before the crash: once; otherwise at most twice
        assert 1 <= runs.count(n) <= (1 if n in finished_before else 2)


async def test_parallel_worker_settings_are_checked_and_an_empty_list_is_an_empty_output(
    session_service: BaseSessionService,
) -> None:
    with pytest.raises(ValueError, match="only be given with parallel_worker=True"):
        node(max_parallel_workers=2)
    with pytest.raises(ValueError, match="must be 1 or more"):
        node(parallel_worker=True, max_parallel_workers=0)

    @node(parallel_worker=True)
    def echo(node_input: Any) -> Any:
        return node_input

    def nothing(node_input: Any) -> list[Any]:
        return []

    run = await Run(session_service, Workflow(name="empty", edges=[(START, nothing, echo)])).start()
    assert outputs(await run.send(message("go")))["empty@1/echo@1"] == []


async def test_a_parallel_worker_wraps_a_plain_function_as_google_adks_does(
    session_service: BaseSessionService,
) -> None:
    from adk_runtime.workflow._parallel_worker import ParallelWorker

    def square(node_input: int) -> int:
        return node_input * node_input

    def items(node_input: Any) -> list[int]:
        return [1, 2, 3]

    worker = ParallelWorker(node=square, max_parallel_workers=2)
    assert (worker.name, type(worker.node).__name__) == ("square", "FunctionNode")
    run = await Run(session_service, Workflow(name="sq", edges=[(START, items, worker)])).start()
    assert outputs(await run.send(message("go")))["sq@1/square@1"] == [1, 4, 9]
    with pytest.raises(WorkflowConfigurationError, match="cannot wrap START"):
        ParallelWorker(node="START")
    with pytest.raises(WorkflowConfigurationError, match="cannot be a workflow node"):
        ParallelWorker(node=42)


class _Tagger(Node):
    tag: str = "t"

    async def run_node_impl(
        self, *, ctx: NodeContext, node_input: Any
    ) -> AsyncGenerator[Any, None]:
        await asyncio.sleep(0.01 * (3 - len(str(node_input))))  # later items finish first
        yield f"{self.tag}:{node_input}"


async def test_a_node_subclass_runs_its_items_at_once_with_parallel_worker(
    session_service: BaseSessionService,
) -> None:
    tagger = _Tagger(name="tagger", tag="x", parallel_worker=True, max_parallel_workers=2)
    assert tagger.rerun_on_resume  # a parallel worker runs again on resume
    copied = tagger.model_copy(update={"tag": "y", "name": "retagger"})
    assert isinstance(copied, _Tagger)
    assert copied.parallel_worker
    assert copied.tag == "y"

    def items(node_input: Any) -> list[str]:
        return ["a", "bb", "c"]

    run = await Run(
        session_service, Workflow(name="tags", edges=[(START, items, tagger, copied)])
    ).start()
    found = outputs(await run.send(message("go")))
    assert found["tags@1/tagger@1"] == ["x:a", "x:bb", "x:c"]  # in the items' order
    assert sorted(k for k in found if k.startswith("tags@1/tagger@1/")) == [
        "tags@1/tagger@1/tagger@1",
        "tags@1/tagger@1/tagger@2",
        "tags@1/tagger@1/tagger@3",
    ]  # each item a child run of its own
    # the copy is a parallel worker of its own class with its own field
    assert found["tags@1/retagger@1"] == ["y:x:a", "y:x:bb", "y:x:c"]


async def test_a_node_subclass_schemas_apply_to_each_item_and_settings_are_checked(
    session_service: BaseSessionService,
) -> None:
    with pytest.raises(ValueError, match="only be given with parallel_worker=True"):
        _Tagger(name="tagger", max_parallel_workers=2)
    with pytest.raises(ValueError, match="must be 1 or more"):
        _Tagger(name="tagger", parallel_worker=True, max_parallel_workers=0)
    plain = _Tagger(name="plain", input_schema=int)
    assert not plain.rerun_on_resume

    def items(node_input: Any) -> list[Any]:
        return [1, "two"]

    checked = _Tagger(name="checked", input_schema=int, parallel_worker=True)
    run = await Run(session_service, Workflow(name="w", edges=[(START, items, checked)])).start()
    with pytest.raises(WorkflowDataError, match="checked"):
        await run.send(message("go"))

    class Bare(Node):
        pass

    run = await Run(session_service, Workflow(name="bare", edges=[(START, Bare(name="b"))])).start()
    with pytest.raises(NotImplementedError, match="run_node_impl"):
        await run.send(message("go"))


async def test_an_invocation_context_built_by_hand_runs_a_workflow_given_as_its_agent(
    session_service: BaseSessionService,
) -> None:
    """google-adk 2's ``InvocationContext(agent=workflow)``: the node runs as the root agent."""
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.workflow._root import NodeAgent

    def double(node_input: types.Content) -> int:
        return int(node_input.parts[0].text or "") * 2  # type: ignore[index]

    flow = Workflow(name="by_hand", edges=[("START", double)])
    session = await session_service.create_session(app_name="by_hand", user_id="u")
    ctx = InvocationContext(
        invocation_id="e-by-hand",
        session=session,
        agent=flow,
        session_service=session_service,
        user_content=message("21"),
    )
    assert isinstance(ctx.agent, NodeAgent)
    assert ctx.agent.node is flow
    events = []
    async for event in ctx.agent.run_async(ctx):
        await session_service.append_event(session, event)
        events.append(event)
    assert outputs(events) == {"by_hand@1/double@1": 42}
    stored = await session_service.get_session(
        app_name="by_hand", user_id="u", session_id=session.id
    )
    assert stored is not None
    assert outputs(stored.events) == outputs(events)

    with pytest.raises(ValidationError):
        InvocationContext(
            invocation_id="e-x", session=session, agent="by_hand", session_service=session_service
        )


async def test_a_runner_given_a_workflow_as_its_agent_runs_it_as_a_root_node(
    session_service: BaseSessionService,
) -> None:
    """google-adk 2's ``Runner(app_name=..., agent=workflow)``, as ``Runner(node=...)``."""
    from adk_runtime.runners import Runner

    def shout(node_input: types.Content) -> str:
        return (node_input.parts[0].text or "").upper()  # type: ignore[index]

    flow = Workflow(name="loud", edges=[(START, shout)])
    runner = Runner(app_name="loud_app", agent=flow, session_service=session_service)
    session = await session_service.create_session(app_name="loud_app", user_id="u")
    events = [
        event
        async for event in runner.run_async(
            user_id="u", session_id=session.id, new_message=message("hey")
        )
    ]
    assert outputs(events) == {"loud@1/shout@1": "HEY"}
    stored = await session_service.get_session(
        app_name="loud_app", user_id="u", session_id=session.id
    )
    assert stored is not None
    assert outputs(stored.events) == {"loud@1/shout@1": "HEY"}
