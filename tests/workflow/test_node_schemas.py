"""What a node's schemas make of messages and return values, and nodes written google-adk's way.

A message (the user's, or a node's) given to a typed input is read as google-adk reads it: its
text for ``str``, the JSON value of its text for other types. A function's return hint that
names a pydantic model checks its outputs. On every backend.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_runtime.events import Event
from adk_runtime.sessions import BaseSessionService
from adk_runtime.workflow import (
    START,
    BaseNode,
    FunctionNode,
    JoinNode,
    NodeContext,
    Workflow,
    WorkflowConfigurationError,
    WorkflowDataError,
)
from adk_runtime.workflow._graph import Graph
from tests.workflow.helpers import Run, message, outputs


class Person(BaseModel):
    name: str
    age: int


class Review(BaseModel):
    verdict: str
    reviewer: str = "auto"


class Echo(BaseNode):
    """Outputs what it was given (after its input_schema made it so)."""

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        yield {"got": node_input, "type": type(node_input).__name__}


@pytest.mark.parametrize(
    ("schema", "text", "expected"),
    [
        (str, "hello", {"got": "hello", "type": "str"}),
        (int, "42", {"got": 42, "type": "int"}),
        (list[int], "[1, 2]", {"got": [1, 2], "type": "list"}),
        (
            Person,
            '{"name": "Ada", "age": 36}',
            {"got": {"name": "Ada", "age": 36}, "type": "Person"},
        ),
    ],
)
async def test_a_typed_input_reads_the_users_message(
    session_service: BaseSessionService, schema: Any, text: str, expected: dict[str, Any]
) -> None:
    workflow = Workflow(name="typed", edges=[(START, Echo(name="echo", input_schema=schema))])
    run = await Run(session_service, workflow).start()
    assert outputs(await run.send(message(text)))["typed@1/echo@1"] == expected


async def test_a_message_that_does_not_fit_the_input_is_refused_and_nothing_is_stored(
    session_service: BaseSessionService,
) -> None:
    workflow = Workflow(name="typed", edges=[(START, Echo(name="echo", input_schema=int))])
    run = await Run(session_service, workflow).start()
    with pytest.raises(WorkflowDataError, match="The input of node 'echo' does not fit"):
        await run.send(message("forty-two"))
    events = (await run.session()).events
    # the message, and the failure recorded; no output of echo
    assert [(e.author, e.error_code) for e in events] == [
        ("user", None),
        ("typed", "SchemaMismatchError"),
    ]


async def test_a_function_parameter_reads_a_message_as_its_type(
    session_service: BaseSessionService,
) -> None:
    def double(node_input: int) -> int:
        return node_input * 2

    run = await Run(session_service, Workflow(name="calc", edges=[(START, double)])).start()
    assert outputs(await run.send(message("21")))["calc@1/double@1"] == 42


async def test_a_message_output_becomes_the_value_its_output_schema_asks_for(
    session_service: BaseSessionService,
) -> None:
    class Speaker(BaseNode):
        async def _run_impl(
            self, *, ctx: NodeContext, node_input: Any
        ) -> AsyncGenerator[Any, None]:
            text = node_input.parts[0].text  # the user's message
            yield types.Content(role="model", parts=[types.Part(text=text)])

    def greet(node_input: dict[str, Any]) -> str:
        return f"hello {node_input['name']}"

    parsed = Speaker(name="speaker", output_schema=Person)
    workflow = Workflow(name="typed", edges=[(START, parsed, greet)])
    run = await Run(session_service, workflow).start()
    events = await run.send(message('{"name": "Ada", "age": 36}'))
    assert outputs(events) == {
        "typed@1/speaker@1": {"name": "Ada", "age": 36},
        "typed@1/greet@1": "hello Ada",
    }

    # without an output schema the message is the output, passed on as it is
    plain = Workflow(name="plain", edges=[(START, Speaker(name="speaker"))])
    run = await Run(session_service, plain).start()
    [said] = [e for e in await run.send(message("hi")) if e.node_info.path == "plain@1/speaker@1"]
    assert said.output is None
    assert said.content is not None
    assert said.content.parts is not None
    assert said.content.parts[0].text == "hi"


async def test_a_return_hint_naming_a_model_checks_the_functions_output(
    session_service: BaseSessionService,
) -> None:
    def review(node_input: str) -> Review:
        return {"verdict": f"fine: {node_input}"}  # type: ignore[return-value]  # google-adk style

    async def reviews(node_input: str) -> AsyncGenerator[Review, None]:
        yield {"verdict": "first"}  # type: ignore[misc]

    def broken(node_input: str) -> Review:
        return {"reviewer": "me"}  # type: ignore[return-value]

    assert Workflow(name="w", edges=[(START, review)]).sub_nodes[0].output_schema is Review
    for func, expected in ((review, "fine: memo"), (reviews, "first")):
        run = await Run(session_service, Workflow(name="rv", edges=[(START, func)])).start()
        got = outputs(await run.send(message("memo")))[f"rv@1/{func.__name__}@1"]
        assert got == {"verdict": expected, "reviewer": "auto"}  # the model's default filled in

    run = await Run(session_service, Workflow(name="rv", edges=[(START, broken)])).start()
    with pytest.raises(WorkflowDataError, match="The output of node 'broken' does not fit"):
        await run.send(message("memo"))
    assert [e.error_code for e in (await run.session()).events] == [None, "SchemaMismatchError"]


async def test_a_node_that_overrides_run_has_its_outputs_checked(
    session_service: BaseSessionService,
) -> None:
    class Raw(BaseNode):
        value: Any = None

        async def run(  # type: ignore[override]  # google-adk's tests write nodes this way
            self, *, ctx: NodeContext, node_input: Any
        ) -> AsyncGenerator[Any, None]:
            yield Event(output=self.value)

    run = await Run(
        session_service, Workflow(name="raw", edges=[(START, Raw(name="raw", value=[1]))])
    ).start()
    assert outputs(await run.send(message("go")))["raw@1/raw@1"] == [1]

    bad = Workflow(name="raw", edges=[(START, Raw(name="raw", value=b"\x00"))])
    run = await Run(session_service, bad).start()
    with pytest.raises(WorkflowDataError, match="holds bytes"):
        await run.send(message("go"))
    assert [e.error_code for e in (await run.session()).events] == [None, "WorkflowDataError"]


async def test_a_bare_base_node_is_built_and_fails_only_when_it_runs(
    session_service: BaseSessionService,
) -> None:
    idle = BaseNode(name="idle")  # google-adk builds one too (a Runner's node, START)
    run = await Run(session_service, Workflow(name="w", edges=[(START, idle)])).start()
    with pytest.raises(NotImplementedError, match="implement _run_impl"):
        await run.send(message("go"))


async def test_a_workflow_takes_a_graph_as_google_adk_does(
    session_service: BaseSessionService,
) -> None:
    def first(node_input: str) -> str:
        return node_input + "!"

    def second(node_input: str) -> str:
        return node_input + "?"

    graph = Workflow(name="chain", edges=[(START, first, second)]).graph
    assert [n.name for n in graph.nodes] == [START.name, "first", "second"]
    workflow = Workflow(name="chain", graph=Graph(edges=list(graph.edges)))
    run = await Run(session_service, workflow).start()
    assert outputs(await run.send(message("hi")))["chain@1/second@1"] == "hi!?"

    with pytest.raises(WorkflowConfigurationError, match="edges or its graph, not both"):
        Workflow(name="both", graph=graph, edges=[graph.edges[0]])
    with pytest.raises(WorkflowConfigurationError, match="must be a Graph"):
        Workflow(name="wrong", graph=[(START, first)])


async def test_a_join_nodes_input_schema_checks_each_predecessors_output(
    session_service: BaseSessionService,
) -> None:
    """google-adk checks each arrival, not the joined dict; None (no output) passes."""

    def ada() -> dict[str, Any]:
        return {"name": "Ada", "age": "36"}

    def nobody() -> None:
        return None

    def broken() -> dict[str, Any]:
        return {"name": "Bob"}

    def joined(node_input: dict[str, Any]) -> dict[str, Any]:
        return node_input

    def flow(name: str, second: Any) -> Workflow:
        both = JoinNode(name="both", input_schema=Person)
        return Workflow(name=name, edges=[(START, (ada, second), both, joined)])

    run = await Run(session_service, flow("people", nobody)).start()
    done = outputs(await run.send(message("go")))
    # each arrival was made a Person (the age a number), the missing one left None
    assert done["people@1/joined@1"] == {"ada": {"name": "Ada", "age": 36}, "nobody": None}

    run = await Run(session_service, flow("bad", broken)).start()
    with pytest.raises(WorkflowDataError, match="The input of node 'both' does not fit"):
        await run.send(message("go"))
    stored = outputs((await run.session()).events)
    assert not any(path.startswith(("bad@1/both", "bad@1/joined")) for path in stored)


async def test_a_partial_is_a_node_named_and_described_by_its_function(
    session_service: BaseSessionService,
) -> None:
    def scale(node_input: int, factor: int) -> int:
        """Multiplies the input."""
        return node_input * factor

    triple = FunctionNode(functools.partial(scale, factor=3))
    assert (triple.name, triple.description) == ("scale", "Multiplies the input.")
    run = await Run(session_service, Workflow(name="calc", edges=[(START, triple)])).start()
    assert outputs(await run.send(message("14")))["calc@1/scale@1"] == 42


async def test_a_model_annotated_node_input_is_the_nodes_input_schema(
    session_service: BaseSessionService,
) -> None:
    def greet(node_input: Person) -> str:
        return f"{node_input.name} is {node_input.age}"

    greeter = FunctionNode(greet)
    assert greeter.input_schema is Person  # as google-adk infers it
    run = await Run(session_service, Workflow(name="hi", edges=[(START, greeter)])).start()
    assert outputs(await run.send(message('{"name": "Ada", "age": "36"}')))["hi@1/greet@1"] == (
        "Ada is 36"
    )
    run = await Run(session_service, Workflow(name="hi2", edges=[(START, greeter)])).start()
    with pytest.raises(WorkflowDataError, match="The input of node 'greet' does not fit"):
        await run.send(message('{"name": "Ada"}'))


async def test_parts_that_are_not_text_left_out_of_a_text_input_are_logged(
    session_service: BaseSessionService, caplog: pytest.LogCaptureFixture
) -> None:
    def record(node_input: str) -> str:
        return node_input

    image = types.Part(inline_data=types.Blob(data=b"secret-pixels", mime_type="image/png"))
    run = await Run(session_service, Workflow(name="rec", edges=[(START, record)])).start()
    with caplog.at_level(logging.WARNING, logger="adk_runtime.workflow"):
        events = await run.send(types.Content(role="user", parts=[types.Part(text="Hi"), image]))
    assert outputs(events)["rec@1/record@1"] == "Hi"
    (warning,) = [r.getMessage() for r in caplog.records if "not text" in r.getMessage()]
    assert "'record'" in warning
    assert "1 part(s)" in warning
    assert "secret-pixels" not in caplog.text
