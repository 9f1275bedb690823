"""``Workflow``: a graph of nodes, run by following its edges.

The scheduler keeps a queue of triggers (a node to run, with its input). Ready triggers run
as tasks (at most ``max_concurrency`` at a time); when a run completes its output goes to the
nodes its edges (and route) lead to. A ``JoinNode`` (any node that waits for all its
predecessors) runs once each of them has delivered, with their outputs by name. The first
failure (after its retries) cancels the other runs and fails the workflow. Runs the log shows
finished complete at once, in the order they were committed, without running again (see
``_run``).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import Field, PrivateAttr

from adk_runtime.workflow._base_node import START, BaseNode
from adk_runtime.workflow._errors import (
    NodeInterrupted,
    WorkflowConfigurationError,
    WorkflowDataError,
)
from adk_runtime.workflow._graph import Graph, parse_edges
from adk_runtime.workflow._run import NodeResult, Place

if TYPE_CHECKING:
    from adk_runtime.workflow._context import NodeContext

__all__ = ["Workflow"]


@dataclass
class _Trigger:
    name: str
    node_input: Any
    source: str = START.name


@dataclass
class _Loop:
    """One run of a workflow: what is queued, running, done."""

    triggers: deque[_Trigger] = field(default_factory=deque)
    runs: dict[str, int] = field(default_factory=dict)
    running: dict[asyncio.Task[NodeResult], tuple[str, str]] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    arrivals: dict[str, dict[str, Any]] = field(default_factory=dict)
    interrupts: list[str] = field(default_factory=list)
    waiting: set[str] = field(default_factory=set)
    """Nodes whose run waits for the user: their next triggers wait until it is answered."""

    def busy(self, name: str) -> bool:
        """Whether a run of node ``name`` is under way or waits for the user."""
        return name in self.waiting or any(n == name for n, _ in self.running.values())


class Workflow(BaseNode):
    """A graph of nodes: ``Workflow(name=..., edges=[(START, a, b), ...])``.

    Edges are ``Edge`` objects or chains: ``(START, a, b)`` runs ``a`` then ``b``;
    ``(a, (b, c))`` fans out to ``b`` and ``c``; ``((b, c), d)`` fans in;
    ``(a, {"yes": b, "no": c})`` routes on the route ``a`` emits. Nodes may be ``BaseNode``
    objects, functions (made ``FunctionNode``), agents and tools; the same object is one node.

    The nodes after START get the workflow's input (the user's message at the root). The
    workflow's output is the output of its terminal node (the one no edge leaves): two
    terminal nodes with outputs are an error.

    A workflow is a node: it can run inside another one. At the root of a Runner
    (``Runner(node=workflow)``) each of its events is committed before the node that made it
    goes on, and a paused or interrupted invocation continues from its log.

    Attributes:
        edges: The graph's edges (or ``graph=Graph(edges=[...])``, google-adk's form).
        max_concurrency: At most this many nodes run at once (None or <= 0: no limit).
    """

    rerun_on_resume: bool = True
    edges: list[Any] = Field(default_factory=list)
    max_concurrency: int | None = None
    _graph: Graph = PrivateAttr()

    def __init__(self, **fields: Any) -> None:
        """Build the workflow and check its graph.

        ``graph=Graph(edges=[...])`` (google-adk's field) stands for its edges.

        Raises:
            WorkflowConfigurationError: The edges do not make a workable graph, or both
                ``edges`` and ``graph`` are given.
            StateSchemaError: With a ``state_schema``, a function node reads an undeclared
                state key.
        """
        graph = fields.pop("graph", None)
        if graph is not None:
            if not isinstance(graph, Graph):
                raise WorkflowConfigurationError(
                    f"Workflow graph must be a Graph, not {type(graph).__name__}."
                )
            if fields.get("edges"):
                raise WorkflowConfigurationError(
                    "Give a Workflow its edges or its graph, not both."
                )
            fields["edges"] = list(graph.edges)
        super().__init__(**fields)
        from adk_runtime.workflow._node import build_node

        built: dict[int, BaseNode] = {}

        def build(item: Any) -> BaseNode:
            if id(item) not in built:
                built[id(item)] = build_node(item)
            return built[id(item)]

        self._graph = Graph(parse_edges(self.edges, build))
        self._check_state_parameters()

    def _check_state_parameters(self) -> None:
        """Refuse a function node reading a state key its ``state_schema`` does not declare.

        Raises:
            StateSchemaError: Such a parameter (checked when the workflow has a schema).
        """
        if self.state_schema is None:
            return
        from adk_runtime.sessions.state import StateSchemaError
        from adk_runtime.workflow._function_node import FunctionNode

        for node in self.sub_nodes:
            if not isinstance(node, FunctionNode):
                continue
            schema = node.state_schema or self.state_schema
            for name in node.state_parameters:
                if name not in schema.model_fields:
                    raise StateSchemaError(
                        f"FunctionNode {node.name!r} parameter {name!r} is not declared in "
                        f"state_schema {schema.__name__!r} (declared: "
                        f"{sorted(schema.model_fields)})."
                    )

    @property
    def graph(self) -> Graph:
        """The checked graph of ``edges``."""
        return self._graph

    @property
    def sub_nodes(self) -> list[BaseNode]:
        """The workflow's nodes (START excluded), in the order the edges name them."""
        return [node for node in self._graph.nodes if node is not START]

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        loop = _Loop()
        for name in self._graph.start_names():
            loop.triggers.append(_Trigger(name, node_input))
        try:
            await self._drive(ctx, loop)
        finally:
            for task in loop.running:
                task.cancel()
            await asyncio.gather(*loop.running, return_exceptions=True)
        if loop.interrupts:  # paused: the questions are committed; the answers continue it
            raise NodeInterrupted(loop.interrupts)
        outputs = [
            loop.outputs[name] for name in self._graph.terminal_names if name in loop.outputs
        ]
        if len(outputs) > 1:
            raise WorkflowDataError(
                f"Workflow {self.name!r}: multiple terminal nodes produced an output "
                f"({len(outputs)}); a workflow has at most one (join them, or give the others "
                "no output)."
            )
        if outputs:  # the terminal node's event carries it; checked here, and when replayed
            ctx._output_delegated = True
            ctx._delegated_output = self.checked_output(outputs[0])
        for event in _NONE:  # the nodes commit their own events: the workflow yields none
            yield event

    async def _drive(self, ctx: NodeContext, loop: _Loop) -> None:
        while True:
            self._start_ready(ctx, loop)
            if not loop.running:
                return
            done, _ = await asyncio.wait(loop.running, return_when=asyncio.FIRST_COMPLETED)
            # a failure first; then in the order committed, as a replay handles them
            for task in sorted(done, key=_commit_order):
                name, _path = loop.running.pop(task)
                self._completed(loop, name, task.result())

    def _start_ready(self, ctx: NodeContext, loop: _Loop) -> None:
        """Start the runs the queued triggers make ready; complete those the log holds.

        Runs completed from the log are handled in the order they were committed, so the
        triggers they make (and the run ids those get) are the ones the first run made.
        """
        while True:
            replayed = self._start_pass(ctx, loop)
            if not replayed:
                return
            for name, result in sorted(replayed, key=lambda pair: pair[1].order):
                self._completed(loop, name, result)

    def _start_pass(self, ctx: NodeContext, loop: _Loop) -> list[tuple[str, NodeResult]]:
        replayed: list[tuple[str, NodeResult]] = []
        limit = self.max_concurrency if self.max_concurrency and self.max_concurrency > 0 else 0
        held: deque[_Trigger] = deque()
        while loop.triggers:
            trigger = loop.triggers.popleft()
            # a node runs its triggers one at a time, in the order they came (google-adk)
            if (limit and len(loop.running) >= limit) or loop.busy(trigger.name):
                held.append(trigger)
                continue
            node = self._graph.by_name[trigger.name]
            node_input = self._joined(loop, node, trigger)
            if node_input is _NOT_YET:
                continue
            run_id = loop.runs.get(trigger.name, 0) + 1
            loop.runs[trigger.name] = run_id
            path = f"{ctx.node_path}/{trigger.name}@{run_id}"
            done = ctx.workflow_run.logged(node, path)
            if done is not None:  # the log has it: complete without running
                replayed.append((trigger.name, done))
                continue
            task = asyncio.ensure_future(self._run_child(ctx, node, node_input, path))
            loop.running[task] = (trigger.name, path)
        loop.triggers.extendleft(reversed(held))
        return replayed

    def _joined(self, loop: _Loop, node: BaseNode, trigger: _Trigger) -> Any:
        if not getattr(node, "waits_for_all_predecessors", False):
            return trigger.node_input
        arrived = loop.arrivals.setdefault(node.name, {})
        arrived[trigger.source] = trigger.node_input
        expected = self._graph.predecessors[node.name]
        if not set(expected) <= set(arrived):
            return _NOT_YET
        del loop.arrivals[node.name]
        return {name: arrived[name] for name in expected}

    async def _run_child(
        self, ctx: NodeContext, node: BaseNode, node_input: Any, path: str
    ) -> NodeResult:
        place = Place(path, self.name, self._output_for(ctx, node), ctx.state_schema)
        return await ctx.workflow_run.advance(node, node_input, place)

    def _output_for(self, ctx: NodeContext, node: BaseNode) -> tuple[str, ...]:
        """The workflows a terminal node's output is also the output of (this one, up)."""
        if node.name not in self._graph.terminal_names:
            return ()
        return (ctx.node_path, *ctx._output_for)

    def _completed(self, loop: _Loop, name: str, result: NodeResult) -> None:
        if result.interrupts:
            loop.interrupts.extend(result.interrupts)
            loop.waiting.add(name)
            return
        node = self._graph.by_name[name]
        if node.wait_for_output and not result.has_output and result.route is None:
            return  # waiting: nothing downstream until it yields an output
        if result.has_output:
            loop.outputs[name] = result.output
        for successor in self._graph.next_names(name, result.route):
            loop.triggers.append(_Trigger(successor, result.output, source=name))


_NOT_YET = object()


def _commit_order(task: asyncio.Task[NodeResult]) -> int:
    return -1 if task.exception() is not None else task.result().order


_NONE: tuple[Any, ...] = ()
