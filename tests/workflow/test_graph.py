"""Building workflow graphs: chains, fan-out and fan-in, routes, and the mistakes refused."""

from __future__ import annotations

from typing import Any

import pytest

from adk_runtime.agents import LlmAgent
from adk_runtime.testing.scripted_model import ScriptedModel
from adk_runtime.tools import FunctionTool
from adk_runtime.workflow import (
    DEFAULT_ROUTE,
    START,
    Edge,
    FunctionNode,
    JoinNode,
    RetryConfig,
    Workflow,
    WorkflowConfigurationError,
    node,
)
from adk_runtime.workflow._agent_node import AgentNode
from adk_runtime.workflow._tool_node import ToolNode


def first(node_input: Any) -> Any:
    return node_input


def second(node_input: Any) -> Any:
    return node_input


def third(node_input: Any) -> Any:
    return node_input


def _pairs(workflow: Workflow) -> list[tuple[str, str, Any]]:
    return [(e.from_node.name, e.to_node.name, e.route) for e in workflow.graph.edges]


def test_a_chain_links_each_element_to_the_next() -> None:
    workflow = Workflow(name="wf", edges=[(START, first, second, third)])
    assert _pairs(workflow) == [
        ("__START__", "first", None),
        ("first", "second", None),
        ("second", "third", None),
    ]
    assert workflow.graph.terminal_names == {"third"}
    assert [n.name for n in workflow.sub_nodes] == ["first", "second", "third"]


def test_tuples_fan_out_and_in_and_dicts_route() -> None:
    join = JoinNode(name="join")
    workflow = Workflow(
        name="wf",
        edges=[
            (START, first, (second, third), join),
            (join, {"again": first, DEFAULT_ROUTE: FunctionNode(lambda: 1, name="done")}),
        ],
    )
    assert ("first", "second", None) in _pairs(workflow)
    assert ("first", "third", None) in _pairs(workflow)
    assert ("second", "join", None) in _pairs(workflow)
    assert ("third", "join", None) in _pairs(workflow)
    assert ("join", "first", "again") in _pairs(workflow)
    assert ("join", "done", DEFAULT_ROUTE) in _pairs(workflow)
    assert workflow.graph.predecessors["join"] == ["second", "third"]


def test_the_same_function_is_one_node_and_start_may_be_a_string() -> None:
    workflow = Workflow(name="wf", edges=[("START", first), (first, second), (first, third)])
    assert [n.name for n in workflow.sub_nodes] == ["first", "second", "third"]
    assert isinstance(workflow.graph.by_name["first"], FunctionNode)


def test_routes_pick_edges_and_default_catches_the_rest() -> None:
    start, then = node(first), node(second)
    workflow = Workflow(
        name="wf",
        edges=[
            (START, start),
            Edge(from_node=start, to_node=then, route=["a", "b"]),
            (start, {True: third, DEFAULT_ROUTE: FunctionNode(lambda: 1, name="other")}),
        ],
    )
    graph = workflow.graph
    assert graph.next_names("first", "b") == ["second"]
    assert graph.next_names("first", True) == ["third"]
    assert graph.next_names("first", ["a", True]) == ["second", "third"]
    assert graph.next_names("first", "zzz") == ["other"]
    assert graph.next_names("first", None) == ["other"]


def test_agents_tools_and_functions_become_nodes() -> None:
    agent = LlmAgent(name="writer", model=ScriptedModel(replies=["x"]))

    def lookup(city: str) -> str:
        """Look a city up."""
        return city

    tool = FunctionTool(lookup)
    workflow = Workflow(name="wf", edges=[(START, agent, tool)])
    assert isinstance(workflow.graph.by_name["writer"], AgentNode)
    assert isinstance(workflow.graph.by_name["lookup"], ToolNode)
    assert workflow.graph.by_name["lookup"].description == "Look a city up."


def test_the_node_decorator_sets_what_it_is_given() -> None:
    @node(name="fetch", retry_config=RetryConfig(max_attempts=3), timeout=2.5)
    async def fetch_page(node_input: str) -> str:
        """Fetch a page."""
        return node_input

    assert isinstance(fetch_page, FunctionNode)
    assert (fetch_page.name, fetch_page.timeout, fetch_page.description) == (
        "fetch",
        2.5,
        "Fetch a page.",
    )
    assert fetch_page.retry_config == RetryConfig(max_attempts=3)
    renamed = node(fetch_page, name="fetch_again")
    assert renamed.name == "fetch_again"
    assert fetch_page.name == "fetch"

    @node
    def plain() -> int:
        return 1

    assert isinstance(plain, FunctionNode)
    assert plain.name == "plain"


@pytest.mark.parametrize(
    ("edges", "message"),
    [
        ([(first, second)], "must start at START"),
        ([(START, first), (first, START)], "No edge may lead into START"),
        ([(START, first), (second, third)], "cannot be reached from START"),
        ([(START, first), ("not a chain",)], "chain tuple of two or more"),
        ([["START", first]], "chain tuple of two or more"),
        ([(START, first, {3.5: second})], "A route is a str, int or bool"),
        ([(START, first, 42)], "cannot be a workflow node"),
        ([(START, first, ())], "empty tuple"),
        ([(START, {"x": first})], "Edges from START take no route"),
    ],
)
def test_unworkable_graphs_are_refused_when_built(edges: list[Any], message: str) -> None:
    with pytest.raises(WorkflowConfigurationError, match=message):
        Workflow(name="wf", edges=edges)


def test_two_nodes_with_one_name_are_refused() -> None:
    other = FunctionNode(third, name="first")
    with pytest.raises(WorkflowConfigurationError, match="Two different nodes are named 'first'"):
        Workflow(name="wf", edges=[(START, first, other)])


def test_bad_names_and_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="valid Python identifier"):
        FunctionNode(first, name="not-an-identifier")
    with pytest.raises(WorkflowConfigurationError, match="no usable name"):
        FunctionNode(lambda: 1)
    with pytest.raises(WorkflowConfigurationError, match="wraps a callable"):
        FunctionNode(42)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="exception classes or their names"):
        RetryConfig(exceptions=[42])
    with pytest.raises(ValueError, match="greater than 0"):
        FunctionNode(first, timeout=0)
    # a misspelt setting is refused, not dropped (an `edge=` would build an empty workflow)
    with pytest.raises(ValueError, match=r"edge\n  Extra inputs are not permitted"):
        Workflow(name="typo", edge=[(START, first)])
    with pytest.raises(ValueError, match="rerun_on_resme"):
        FunctionNode(first, rerun_on_resme=True)


def test_retry_policy_matches_classes_and_their_subclasses() -> None:
    policy = RetryConfig(max_attempts=3, exceptions=[LookupError], initial_delay=0.5, jitter=0)
    assert policy.should_retry(KeyError("k"), attempt=1)
    assert not policy.should_retry(ValueError("v"), attempt=1)
    assert not policy.should_retry(KeyError("k"), attempt=3)
    assert [policy.delay(n) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]
    capped = RetryConfig(initial_delay=10, max_delay=15, jitter=0)
    assert capped.delay(3) == 15
    jittered = RetryConfig(initial_delay=1.0, jitter=0.5)
    assert all(0.5 <= jittered.delay(1) <= 1.5 for _ in range(50))
    assert RetryConfig().should_retry(RuntimeError(), attempt=4)
    assert not RetryConfig().should_retry(RuntimeError(), attempt=5)
