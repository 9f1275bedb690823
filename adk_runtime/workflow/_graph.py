"""Edges and the graph they make: how ``Workflow(edges=[...])`` is read and checked."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, InstanceOf

from adk_runtime.workflow._base_node import START, BaseNode
from adk_runtime.workflow._errors import WorkflowConfigurationError

__all__ = ["DEFAULT_ROUTE", "Edge", "EdgeItem", "Graph", "NodeLike", "RouteValue"]

logger = logging.getLogger(__name__)

RouteValue: TypeAlias = bool | int | str
"""A route a node can take: an edge with this route is followed when the node emits it."""

NodeLike: TypeAlias = BaseNode | Callable[..., Any] | Literal["START"]
"""What an edge may name: a node, an agent, a tool, a function, or ``"START"``."""

DEFAULT_ROUTE = "__DEFAULT__"
"""The route of an edge followed when the node took no route another edge of it names."""


class Edge(BaseModel):
    """An edge from one node to another, followed always or only on ``route``.

    Attributes:
        from_node: Where the edge starts.
        to_node: Where it leads.
        route: None: always followed. A value (or a list of values): followed when the node
            emits one of them. ``DEFAULT_ROUTE``: followed when no other routed edge matched.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")

    from_node: InstanceOf[BaseNode]
    to_node: InstanceOf[BaseNode]
    route: RouteValue | list[RouteValue] | None = None


EdgeItem: TypeAlias = Edge | tuple[Any, ...]
"""An ``Edge``, or a chain ``(a, b, c)``: a tuple element fans out or in, a dict routes."""


class Graph:
    """The nodes and edges of a workflow, checked once when the workflow is built."""

    def __init__(self, edges: list[Edge]) -> None:
        """Collect the nodes of ``edges`` and check the graph.

        Raises:
            WorkflowConfigurationError: Two nodes share a name, an edge leads into START,
                nothing starts at START, or a node cannot be reached from START.
        """
        self.edges = edges
        self.by_name: dict[str, BaseNode] = {}
        for edge in edges:
            for node in (edge.from_node, edge.to_node):
                known = self.by_name.setdefault(node.name, node)
                if known is not node:
                    raise WorkflowConfigurationError(
                        f"Two different nodes are named {node.name!r}: node names must be "
                        "unique in a workflow (give one of them another name)."
                    )
        self._outgoing: dict[str, list[Edge]] = {name: [] for name in self.by_name}
        self.predecessors: dict[str, list[str]] = {name: [] for name in self.by_name}
        for edge in edges:
            self._outgoing[edge.from_node.name].append(edge)
            if edge.from_node.name not in self.predecessors[edge.to_node.name]:
                self.predecessors[edge.to_node.name].append(edge.from_node.name)
        self._check()

    @property
    def nodes(self) -> list[BaseNode]:
        """Every node of the graph (START too), in the order the edges name them."""
        return list(self.by_name.values())

    def _check(self) -> None:
        if not self.edges:
            return
        if START.name not in self.by_name or not self._outgoing[START.name]:
            raise WorkflowConfigurationError(
                "A workflow graph must start at START: add an edge (START, first_node)."
            )
        if self.predecessors[START.name]:
            raise WorkflowConfigurationError("No edge may lead into START.")
        for edge in self._outgoing[START.name]:
            if edge.route is not None:
                raise WorkflowConfigurationError("Edges from START take no route.")
        reached = {START.name}
        frontier = [START.name]
        while frontier:
            for edge in self._outgoing[frontier.pop()]:
                if edge.to_node.name not in reached:
                    reached.add(edge.to_node.name)
                    frontier.append(edge.to_node.name)
        unreachable = sorted(set(self.by_name) - reached)
        if unreachable:
            raise WorkflowConfigurationError(
                f"Nodes {unreachable} cannot be reached from START: connect them or remove "
                "their edges."
            )

    @property
    def terminal_names(self) -> set[str]:
        """The nodes no edge leaves: their output is the workflow's."""
        return {name for name, edges in self._outgoing.items() if not edges} - {START.name}

    def start_names(self) -> list[str]:
        """The nodes that run first, with the workflow's input."""
        return [edge.to_node.name for edge in self._outgoing.get(START.name, [])]

    def next_names(self, name: str, route: Any) -> list[str]:
        """The nodes to run after ``name`` finished having taken ``route`` (None: none)."""
        routes = set(route) if isinstance(route, list) else {route}
        chosen: list[str] = []
        defaults: list[str] = []
        matched = routed = False
        for edge in self._outgoing[name]:
            if edge.route is None:
                chosen.append(edge.to_node.name)
                continue
            routed = True
            if edge.route == DEFAULT_ROUTE:
                defaults.append(edge.to_node.name)
            elif routes & (set(edge.route) if isinstance(edge.route, list) else {edge.route}):
                chosen.append(edge.to_node.name)
                matched = True
        if not matched:
            chosen.extend(defaults)
        if routed and not chosen:
            logger.warning(
                "Node %r took route %r, which none of its edges names: the branch ends.",
                name,
                route,
            )
        return chosen


def parse_edges(items: Iterable[Any], build: Callable[[Any], BaseNode]) -> list[Edge]:
    """The edges of ``Workflow(edges=items)``; ``build`` makes a node of a node-like value.

    Raises:
        WorkflowConfigurationError: An item is neither an ``Edge`` nor a chain tuple, or a
            chain has fewer than two elements.
    """
    edges: list[Edge] = []
    for item in items:
        if isinstance(item, Edge):
            edges.append(item)
            continue
        if not isinstance(item, tuple) or len(item) < 2:
            raise WorkflowConfigurationError(
                "A workflow edge is an Edge or a chain tuple of two or more nodes, e.g. "
                f"(START, first, second); got {type(item).__name__}."
            )
        sources = _chain_targets(item[0], build)
        for element in item[1:]:
            edges.extend(_link(sources, element, build))
            sources = _chain_targets(element, build)
    return edges


def _chain_targets(element: Any, build: Callable[[Any], BaseNode]) -> list[BaseNode]:
    """The nodes a chain element stands for (a routing map: all its destinations)."""
    if isinstance(element, dict):
        return [node for value in element.values() for node in _group(value, build)]
    return _group(element, build)


def _group(element: Any, build: Callable[[Any], BaseNode]) -> list[BaseNode]:
    members = element if isinstance(element, tuple) else (element,)
    if not members:
        raise WorkflowConfigurationError("An empty tuple in a workflow chain names no node.")
    return [build(member) for member in members]


def _link(sources: list[BaseNode], element: Any, build: Callable[[Any], BaseNode]) -> list[Edge]:
    if isinstance(element, dict):
        return [
            Edge(from_node=source, to_node=target, route=_route(route))
            for route, value in element.items()
            for target in _group(value, build)
            for source in sources
        ]
    return [
        Edge(from_node=source, to_node=target)
        for target in _group(element, build)
        for source in sources
    ]


def _route(route: Any) -> RouteValue:
    if not isinstance(route, bool | int | str):
        raise WorkflowConfigurationError(
            f"A route is a str, int or bool; got {type(route).__name__}."
        )
    return route
