"""Workflows run by a Runner on every backend: what runs, what is committed, in what order."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from adk_runtime.events import Event
from adk_runtime.sessions import BaseSessionService
from adk_runtime.workflow import (
    DEFAULT_ROUTE,
    START,
    BaseNode,
    Edge,
    JoinNode,
    NodeContext,
    NodeTimeoutError,
    RetryConfig,
    SchemaMismatchError,
    Workflow,
    WorkflowDataError,
    node,
)
from tests.workflow.helpers import Run, message, outputs


def shout(node_input: str) -> str:
    return node_input.upper() + "!"


def count_words(ctx: NodeContext, node_input: str) -> dict[str, Any]:
    ctx.state["words"] = len(node_input.split())
    return {"text": node_input, "words": ctx.state["words"]}


async def left(node_input: dict[str, Any]) -> str:
    return "left:" + node_input["text"]


async def right(node_input: dict[str, Any]) -> str:
    await asyncio.sleep(0.01)
    return "right:" + node_input["text"]


def both(node_input: dict[str, str]) -> list[str]:
    return [node_input["left"], node_input["right"]]


async def test_nodes_run_in_order_and_each_output_is_committed_with_its_path(
    session_service: BaseSessionService,
) -> None:
    join = JoinNode(name="join")
    workflow = Workflow(
        name="pipeline", edges=[(START, shout, count_words, (left, right), join, both)]
    )
    run = await Run(session_service, workflow).start()

    events = await run.send(message("hello there"))

    assert outputs(events) == {
        "pipeline@1/shout@1": "HELLO THERE!",
        "pipeline@1/count_words@1": {"text": "HELLO THERE!", "words": 2},
        "pipeline@1/left@1": "left:HELLO THERE!",
        "pipeline@1/right@1": "right:HELLO THERE!",
        "pipeline@1/join@1": {"left": "left:HELLO THERE!", "right": "right:HELLO THERE!"},
        "pipeline@1/both@1": ["left:HELLO THERE!", "right:HELLO THERE!"],
    }
    assert {e.author for e in events} == {"pipeline"}
    session = await run.session()
    stored = [e for e in session.events if e.author != "user"]
    assert outputs(stored) == outputs(events)  # every output reads back as it was made
    assert [e.id for e in stored] == [e.id for e in events]
    assert session.state == {"words": 2}
    [counted] = [e for e in stored if e.node_info.path == "pipeline@1/count_words@1"]
    assert counted.actions.state_delta == {"words": 2}
    # the terminal node's output is the workflow's too: no second event carries it
    [last] = [e for e in stored if e.node_info.path == "pipeline@1/both@1"]
    assert last.node_info.output_for == ["pipeline@1/both@1", "pipeline@1"]


async def test_a_node_resumes_only_after_its_event_is_committed(
    session_service: BaseSessionService,
) -> None:
    seen: list[Any] = []

    class Stepper(BaseNode):
        async def _run_impl(
            self, *, ctx: NodeContext, node_input: Any
        ) -> AsyncGenerator[Any, None]:
            yield Event(state={"step": 1})
            stored = await session_service.get_session(
                app_name="steps", user_id="u", session_id=ctx.session.id
            )
            assert stored is not None
            seen.append((stored.state.get("step"), ctx.state["step"]))
            yield "done"

    run = await Run(
        session_service, Workflow(name="steps", edges=[(START, Stepper(name="s"))])
    ).start()
    await run.send(message("go"))
    assert seen == [(1, 1)]


async def test_routes_choose_branches_and_a_loop_numbers_its_runs(
    session_service: BaseSessionService,
) -> None:
    def bump(ctx: NodeContext) -> Event:
        ctx.state["n"] = ctx.state.get("n", 0) + 1
        return Event(output=ctx.state["n"], route="again" if ctx.state["n"] < 3 else "stop")

    def finish(node_input: int) -> str:
        return f"stopped at {node_input}"

    def never() -> str:
        raise AssertionError("the default branch is not taken when a route matches")

    counter = node(bump)
    workflow = Workflow(
        name="looper",
        edges=[
            (START, counter),
            Edge(from_node=counter, to_node=counter, route="again"),
            (counter, {"stop": finish, DEFAULT_ROUTE: never}),
        ],
    )
    run = await Run(session_service, workflow).start()
    events = await run.send(message("go"))
    assert outputs(events) == {
        "looper@1/bump@1": 1,
        "looper@1/bump@2": 2,
        "looper@1/bump@3": 3,
        "looper@1/finish@1": "stopped at 3",
    }
    assert [e.actions.route for e in events if e.node_info.name == "bump"] == [
        "again",
        "again",
        "stop",
    ]
    assert (await run.session()).state == {"n": 3}


async def test_a_nested_workflow_is_a_node_and_passes_its_output_on(
    session_service: BaseSessionService,
) -> None:
    inner = Workflow(name="inner", edges=[(START, shout)])

    def wrap(node_input: str) -> str:
        return f"<{node_input}>"

    outer = Workflow(name="outer", edges=[(START, inner, wrap)])
    run = await Run(session_service, outer).start()
    events = await run.send(message("hi"))
    assert outputs(events) == {"outer@1/inner@1/shout@1": "HI!", "outer@1/wrap@1": "<HI!>"}
    [shouted] = [e for e in events if e.node_info.name == "shout"]
    assert shouted.node_info.output_for == ["outer@1/inner@1/shout@1", "outer@1/inner@1"]
    assert shouted.author == "inner"


async def test_a_failed_node_is_retried_and_a_slow_one_times_out(
    session_service: BaseSessionService,
) -> None:
    attempts: list[int] = []

    @node(retry_config=RetryConfig(max_attempts=3, initial_delay=0, jitter=0))
    def flaky(ctx: NodeContext) -> str:
        attempts.append(ctx.attempt_count)
        ctx.state["tried"] = ctx.attempt_count
        if ctx.attempt_count < 3:
            raise ConnectionError("try again")
        return "ok"

    run = await Run(session_service, Workflow(name="retrying", edges=[(START, flaky)])).start()
    events = await run.send(message("go"))
    assert attempts == [1, 2, 3]
    assert outputs(events) == {"retrying@1/flaky@1": "ok"}
    assert (await run.session()).state == {"tried": 3}  # failed attempts' writes are dropped

    @node(timeout=0.05, retry_config=RetryConfig(max_attempts=2, initial_delay=0, jitter=0))
    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    run = await Run(session_service, Workflow(name="timing", edges=[(START, slow)])).start()
    with pytest.raises(NodeTimeoutError, match=r"'slow' timed out after 0\.05 seconds"):
        await run.send(message("go"))


async def test_a_failure_stops_the_other_branches_and_keeps_what_was_committed(
    session_service: BaseSessionService,
) -> None:
    finished: list[str] = []

    async def fast() -> str:
        return "fast"

    async def broken() -> str:
        await asyncio.sleep(0.01)
        raise KeyError("missing")

    async def slow() -> str:
        await asyncio.sleep(5)
        finished.append("slow")
        return "slow"

    workflow = Workflow(name="failing", edges=[(START, (fast, broken, slow))])
    run = await Run(session_service, workflow).start()
    with pytest.raises(KeyError):
        await run.send(message("go"))
    assert finished == []
    session = await run.session()
    assert outputs(session.events) == {"failing@1/fast@1": "fast"}


def failures(events: list[Event]) -> list[tuple[str, str | None, str | None]]:
    return [(e.node_info.path, e.error_code, e.error_message) for e in events if e.error_code]


async def test_each_failed_attempt_is_committed_as_an_error_event_where_it_happened(
    session_service: BaseSessionService,
) -> None:
    @node(retry_config=RetryConfig(max_attempts=2, initial_delay=0, jitter=0))
    def flaky(ctx: NodeContext) -> str:
        if ctx.attempt_count < 2:
            raise ConnectionError("the line dropped\nretry with payload {'secret': 1}")
        return "ok"

    run = await Run(session_service, Workflow(name="retrying", edges=[(START, flaky)])).start()
    events = await run.send(message("go"))
    expected = [("retrying@1/flaky@1", "ConnectionError", "the line dropped")]
    assert failures(events) == expected  # the first line only
    assert failures((await run.session()).events) == expected
    assert outputs(events) == {"retrying@1/flaky@1": "ok"}

    class Quota(Exception):
        status = "RESOURCE_EXHAUSTED"

    def broken(node_input: str) -> str:
        raise Quota("over quota")

    inner = Workflow(name="inner", edges=[(START, broken)])

    async def parent(ctx: NodeContext) -> str:
        return await ctx.run_node(inner, "x")

    # one exception object raised at every attempt (a module-level error, say): each failed
    # attempt is still committed, and the last one once, not again by the workflow it fails
    same = ConnectionError("down again")

    @node(retry_config=RetryConfig(max_attempts=3, initial_delay=0, jitter=0))
    def always(node_input: Any) -> str:
        raise same

    run = await Run(session_service, Workflow(name="same", edges=[(START, always)])).start()
    with pytest.raises(ConnectionError):
        await run.send(message("go"))
    assert (
        failures((await run.session()).events)
        == [("same@1/always@1", "ConnectionError", "down again")] * 3
    )

    # reported once, on the failing node's path: not by the workflows or the parent above it
    outer = Workflow(name="outer", edges=[(START, parent)])
    run = await Run(session_service, outer).start()
    with pytest.raises(Quota):
        await run.send(message("go"))
    assert failures((await run.session()).events) == [
        ("outer@1/parent@1/inner@1/broken@1", "RESOURCE_EXHAUSTED", "over quota")
    ]


async def test_max_concurrency_bounds_the_nodes_running_at_once(
    session_service: BaseSessionService,
) -> None:
    running = [0]
    peak = [0]

    def worker(name: str) -> Any:
        async def work() -> str:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
            await asyncio.sleep(0.01)
            running[0] -= 1
            return name

        return node(work, name=name)

    workers = tuple(worker(f"w{i}") for i in range(5))
    join = JoinNode(name="all")
    workflow = Workflow(name="bounded", edges=[(START, workers, join)], max_concurrency=2)
    run = await Run(session_service, workflow).start()
    events = await run.send(message("go"))
    assert outputs(events)["bounded@1/all@1"] == {f"w{i}": f"w{i}" for i in range(5)}
    assert peak[0] == 2


class Report(BaseModel):
    title: str
    pages: int | None = None


@pytest.mark.parametrize(
    ("returned", "schema", "error"),
    [
        (object(), None, "cannot be stored as JSON"),
        ({"title": 3}, Report, "does not fit its schema: title: Input should be a valid string"),
        (b"\x89PNG", None, "holds bytes, which would not read back as bytes"),
        ({"pages": [b"text"]}, None, "holds bytes"),
        ({1, 2}, None, None),  # a set has a JSON form: a list
    ],
)
async def test_an_output_that_cannot_be_stored_or_validated_is_never_committed(
    session_service: BaseSessionService, returned: Any, schema: Any, error: str | None
) -> None:
    def make() -> Any:
        return returned

    bad = node(make)
    bad.output_schema = schema
    if error is None:
        run = await Run(session_service, Workflow(name="good", edges=[(START, bad)])).start()
        await run.send(message("go"))
        assert outputs((await run.session()).events) == {"good@1/make@1": [1, 2]}
        return
    run = await Run(session_service, Workflow(name="bad", edges=[(START, bad)])).start()
    with pytest.raises(WorkflowDataError, match=error):
        await run.send(message("go"))
    # the message and the failure: no output
    code = "SchemaMismatchError" if schema else "WorkflowDataError"
    assert [e.error_code for e in (await run.session()).events] == [None, code]


class Strict(BaseModel):
    title: str
    pages: int

    @field_validator("title")
    @classmethod
    def _custom(cls, value: str) -> str:
        if value == "secret-draft":
            raise PydanticCustomError("draft_title", "drafts {kind} are not reports", {"kind": "x"})
        return value


@pytest.mark.parametrize(
    ("returned", "kinds"),
    [
        ({"title": "secret-title", "pages": "many"}, ["int_parsing"]),
        ({"title": "secret-draft", "pages": 1}, ["draft_title"]),  # a custom error type
    ],
)
async def test_a_schema_mismatch_is_a_pydantic_validation_error_naming_no_values(
    session_service: BaseSessionService, returned: Any, kinds: list[str]
) -> None:
    def make() -> Any:
        return returned

    bad = node(make, name="make")
    bad.output_schema = Strict
    run = await Run(session_service, Workflow(name="w", edges=[(START, bad)])).start()
    with pytest.raises(ValidationError) as caught:  # as google-adk raises
        await run.send(message("go"))
    error = caught.value
    assert isinstance(error, SchemaMismatchError)
    assert isinstance(error, WorkflowDataError)
    assert [e["type"] for e in error.errors()] == kinds
    assert str(error).startswith("The output of node 'make' does not fit its schema: ")
    assert "secret" not in str(error)
    assert "secret" not in repr(error)


async def test_a_function_argument_that_does_not_fit_its_annotation_is_a_validation_error(
    session_service: BaseSessionService,
) -> None:
    def count(node_input: int) -> int:
        return node_input + 1

    run = await Run(session_service, Workflow(name="w", edges=[(START, count)])).start()
    with pytest.raises(ValidationError, match="parameter 'node_input' does not fit") as caught:
        await run.send(message("not a number"))
    assert isinstance(caught.value, SchemaMismatchError)
    assert caught.value.errors()[0]["type"] == "int_parsing"


async def test_a_model_output_is_stored_as_its_json_object(
    session_service: BaseSessionService,
) -> None:
    def make() -> Report:
        return Report(title="Q3")

    run = await Run(session_service, Workflow(name="models", edges=[(START, make)])).start()
    await run.send(message("go"))
    assert outputs((await run.session()).events) == {"models@1/make@1": {"title": "Q3"}}


async def test_one_run_has_at_most_one_output_and_a_workflow_one_terminal_output(
    session_service: BaseSessionService,
) -> None:
    async def twice() -> AsyncGenerator[str, None]:
        yield "one"
        yield "two"

    run = await Run(session_service, Workflow(name="twice", edges=[(START, twice)])).start()
    with pytest.raises(WorkflowDataError, match="second output in one run"):
        await run.send(message("go"))
    assert outputs((await run.session()).events) == {"twice@1/twice@1": "one"}

    def a() -> str:
        return "a"

    def b() -> str:
        return "b"

    run = await Run(session_service, Workflow(name="two_ends", edges=[(START, (a, b))])).start()
    with pytest.raises(
        WorkflowDataError, match=r"multiple terminal nodes produced an output \(2\)"
    ):
        await run.send(message("go"))


async def test_state_parameters_are_bound_and_coerced(
    session_service: BaseSessionService,
) -> None:
    def read(report: Report, limit: int = 5) -> str:
        return f"{report.title}/{limit}"

    run = await Run(session_service, Workflow(name="binding", edges=[(START, read)])).start()
    events = await run.send(message("go"), state_delta={"report": {"title": "Q4"}})
    assert outputs(events) == {"binding@1/read@1": "Q4/5"}

    def needs(missing_key: str) -> str:
        return missing_key

    run = await Run(session_service, Workflow(name="unbound", edges=[(START, needs)])).start()
    with pytest.raises(WorkflowDataError, match="'missing_key' has no value in the session state"):
        await run.send(message("go"))


async def test_a_nested_workflows_output_schema_checks_its_terminal_output(
    session_service: BaseSessionService,
) -> None:
    def report() -> dict[str, Any]:
        return {"title": "Q1", "pages": None}

    def bad_report() -> dict[str, Any]:
        return {"pages": 3}

    def read(node_input: dict[str, Any]) -> str:
        return f"read {node_input}"

    inner = Workflow(name="inner", edges=[(START, report)], output_schema=Report)
    run = await Run(session_service, Workflow(name="outer", edges=[(START, inner, read)])).start()
    events = await run.send(message("go"))
    # one event carries the output (the terminal node's); the parent reads it checked
    assert outputs(events) == {
        "outer@1/inner@1/report@1": {"title": "Q1", "pages": None},
        "outer@1/read@1": "read {'title': 'Q1'}",
    }

    inner = Workflow(name="inner", edges=[(START, bad_report)], output_schema=Report)
    run = await Run(session_service, Workflow(name="outer", edges=[(START, inner, read)])).start()
    with pytest.raises(WorkflowDataError, match="The output of node 'inner' does not fit"):
        await run.send(message("go"))


class Ledger(BaseModel):
    total: int = 0
    note: str | None = None


async def test_state_schema_checks_node_writes_and_nodes_inherit_it(
    session_service: BaseSessionService,
) -> None:
    from adk_runtime.sessions.state import StateSchemaError

    def add(ctx: NodeContext, total: int = 0) -> int:
        ctx.state["total"] = total + 5
        ctx.state["temp:scratch"] = "scoped keys are not checked"
        return ctx.state["total"]

    def scribble(ctx: NodeContext) -> None:
        ctx.state["total"] = "many"

    workflow = Workflow(name="ledger", edges=[(START, add)], state_schema=Ledger)
    run = await Run(session_service, workflow).start()
    assert outputs(await run.send(message("go")))["ledger@1/add@1"] == 5

    inner = Workflow(name="inner", edges=[(START, scribble)])  # inherits the outer schema
    outer = Workflow(name="outer", edges=[(START, inner)], state_schema=Ledger)
    run = await Run(session_service, outer).start()
    with pytest.raises(StateSchemaError, match=r"'total' does not fit Ledger\.total"):
        await run.send(message("go"))
    assert "total" not in (await run.session()).state  # nothing of the write was stored

    def stray(ctx: NodeContext) -> None:
        ctx.state["undeclared"] = 1

    run = await Run(
        session_service, Workflow(name="stray", edges=[(START, stray)], state_schema=Ledger)
    ).start()
    with pytest.raises(StateSchemaError, match="'undeclared' is not declared in Ledger"):
        await run.send(message("go"))


@pytest.mark.parametrize(
    ("delta", "error"),
    [
        ({"undeclared": 1}, "'undeclared' is not declared in Ledger"),
        ({"total": "many"}, r"'total' does not fit Ledger\.total"),
    ],
)
async def test_an_events_own_state_delta_fits_the_state_schema_too(
    session_service: BaseSessionService, delta: dict[str, Any], error: str
) -> None:
    from adk_runtime.sessions.state import StateSchemaError

    def settle() -> Event:
        return Event(state={**delta, "temp:seen": True}, output="settled")

    def behind(ctx: NodeContext) -> str:
        ctx.actions.state_delta.update(delta)  # past ctx.state
        return "settled"

    def fine() -> Event:
        return Event(state={"total": 3, "app:scoped": "not checked"}, output="fine")

    good = Workflow(name="ok", edges=[(START, fine)], state_schema=Ledger)
    run = await Run(session_service, good).start()
    assert outputs(await run.send(message("go")))["ok@1/fine@1"] == "fine"
    assert (await run.session()).state["total"] == 3

    for writer in (settle, behind):
        workflow = Workflow(name="ledger", edges=[(START, writer)], state_schema=Ledger)
        run = await Run(session_service, workflow).start()
        with pytest.raises(StateSchemaError, match=error):
            await run.send(message("go"))
        session = await run.session()
        # the message and the failure: the event was not committed
        assert [e.error_code for e in session.events] == [None, "StateSchemaError"]
        assert set(delta).isdisjoint(session.state)


def test_a_state_parameter_the_schema_lacks_is_refused_when_built() -> None:
    from adk_runtime.sessions.state import StateSchemaError

    def reads(budget: int) -> int:
        return budget

    with pytest.raises(StateSchemaError, match="parameter 'budget' is not declared"):
        Workflow(name="wf", edges=[(START, reads)], state_schema=Ledger)
    Workflow(name="wf", edges=[(START, reads)])  # no schema: nothing to check


async def test_a_replayed_nested_workflow_passes_on_its_checked_output(
    session_service: BaseSessionService,
) -> None:
    crash = {"armed": True}
    seen: list[Any] = []

    def report() -> dict[str, Any]:
        return {"title": "Q1", "pages": None}

    def read(node_input: dict[str, Any]) -> str:
        seen.append(node_input)
        if crash["armed"]:
            crash["armed"] = False
            raise KeyboardInterruptLike
        return "read"

    inner = Workflow(name="inner", edges=[(START, report)], output_schema=Report)
    run = await Run(session_service, Workflow(name="outer", edges=[(START, inner, read)])).start()
    with pytest.raises(KeyboardInterruptLike):
        await run.send(message("go"))
    invocation = (await run.session()).events[0].invocation_id
    await run.send(invocation_id=invocation)
    assert seen == [{"title": "Q1"}, {"title": "Q1"}]  # the same value, fresh and replayed


class KeyboardInterruptLike(BaseException):
    """Stands for the process dying: nothing in the runtime catches it."""
