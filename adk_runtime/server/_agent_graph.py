"""The served agent as google-adk's web UI draws it: a tree of dicts, and Graphviz DOT.

:func:`describe` gives the tree of ``GET /dev/apps/{app}/build_graph`` (an agent: ``name``,
``description``, ``model``, ``instruction``, ``tools`` as ``{"name", "type": "tool"}``,
``sub_agents``; a workflow: ``type: "workflow"`` and ``graph`` with ``nodes`` and
``edges``); :func:`dot` draws one level of it, which the UI renders in the browser.
:func:`graphs` gives every level a ``build_graph_image`` answer holds: the root (path
``""``) and each workflow under it, by its path of names.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from adk_runtime.agents import BaseAgent, LlmAgent
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.workflow import START, BaseNode, FunctionNode, JoinNode, Workflow
from adk_runtime.workflow._agent_node import AgentNode
from adk_runtime.workflow._root import NodeAgent
from adk_runtime.workflow._tool_node import ToolNode

__all__ = ["describe", "dot", "find", "graphs"]

_NODE_TYPES: tuple[tuple[type[Any], str], ...] = (
    (FunctionNode, "function"),
    (ToolNode, "tool"),
    (JoinNode, "join"),
)


def describe(item: BaseAgent | BaseNode) -> dict[str, Any]:
    """An agent or a workflow node as a dict: its name, what it holds, and its children."""
    if isinstance(item, NodeAgent):  # a Runner's root node: the node is what runs
        return describe(item.node)
    if isinstance(item, AgentNode):
        return {**describe(item.agent), "type": "agent"}
    described: dict[str, Any] = {"name": item.name}
    if item.description:
        described["description"] = item.description
    if isinstance(item, BaseAgent):
        _describe_agent(item, described)
    elif isinstance(item, Workflow):
        described["type"] = "workflow"
        described["graph"] = {
            "nodes": [describe(node) for node in item.graph.nodes],
            "edges": [_edge(edge) for edge in item.graph.edges],
        }
    elif item is START:
        described["type"] = "start"
    else:
        described["type"] = next((t for cls, t in _NODE_TYPES if isinstance(item, cls)), "node")
    return described


def _describe_agent(agent: BaseAgent, into: dict[str, Any]) -> None:
    if isinstance(agent, LlmAgent):
        model = agent.model if isinstance(agent.model, str) else agent.model.model
        if model:
            into["model"] = model
        if isinstance(agent.instruction, str) and agent.instruction:
            into["instruction"] = agent.instruction
        sub_names = {sub.name for sub in agent.sub_agents}
        names = (_tool_name(tool) for tool in agent.tools)
        into["tools"] = [{"name": n, "type": "tool"} for n in names if n not in sub_names]
    if agent.sub_agents:
        into["sub_agents"] = [describe(sub) for sub in agent.sub_agents]


def _tool_name(tool: Any) -> str:
    if isinstance(tool, BaseTool | BaseNode):
        return tool.name
    return str(getattr(tool, "__name__", type(tool).__name__))


def _edge(edge: Any) -> dict[str, Any]:
    found: dict[str, Any] = {
        "from_node": {"name": edge.from_node.name},
        "to_node": {"name": edge.to_node.name},
    }
    if edge.route is not None:
        found["route"] = edge.route
    return found


def _children(described: dict[str, Any]) -> list[dict[str, Any]]:
    graph = described.get("graph") or {}
    return [*graph.get("nodes", []), *described.get("sub_agents", [])]


def find(described: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The level at ``path`` (names joined by ``/``; the root's own name may lead)."""
    names = [name for name in path.strip("/").split("/") if name]
    if names and names[0] == described.get("name"):
        names = names[1:]
    current: dict[str, Any] | None = described
    for name in names:
        assert current is not None
        current = next((c for c in _children(current) if c.get("name") == name), None)
        if current is None:
            return None
    return current


def graphs(described: dict[str, Any], path: str = "") -> dict[str, dict[str, Any]]:
    """``described`` at ``path`` and every workflow under it, by path (google-adk's keys)."""
    found = dict(_workflows(described, path))
    found.setdefault(path, described)
    return found


def _workflows(described: dict[str, Any], path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if described.get("graph"):
        yield path, described
    for child in _children(described):
        name = child.get("name")
        if name:
            yield from _workflows(child, f"{path}/{name}" if path else name)


_THEMES = {
    False: {"bg": "#F8FAFC", "fill": "#FFFFFF", "line": "#94A3B8", "text": "#0F172A"},
    True: {"bg": "#0F172A", "fill": "#1E293B", "line": "#475569", "text": "#F8FAFC"},
}
_HIGHLIGHT = "#69CB87"


def dot(described: dict[str, Any], *, dark: bool = False, highlight: str | None = None) -> str:
    """One level as DOT: a workflow's nodes and edges, or an agent tree; tools dashed.

    Args:
        described: A level of :func:`describe`'s tree.
        dark: The UI's dark theme.
        highlight: The name of a node to fill (an event's author).
    """
    theme = _THEMES[dark]
    graph = described.get("graph")
    nodes, edges = (graph.get("nodes", []), graph.get("edges", [])) if graph else _tree(described)
    lines = [
        "digraph agents {",
        f'  graph [rankdir="LR" bgcolor="{theme["bg"]}" fontname="Helvetica"];',
        f'  node [shape="box" style="rounded,filled" fillcolor="{theme["fill"]}" '
        f'color="{theme["line"]}" fontcolor="{theme["text"]}" fontname="Helvetica"];',
        f'  edge [color="{theme["line"]}" fontcolor="{theme["text"]}"];',
    ]
    for node in nodes:
        lines.append(f"  {_node(node, highlight)};")
    for edge in edges:
        route = f' [label="{_text(edge["route"])}"]' if "route" in edge else ""
        lines.append(
            f"  {_id(edge['from_node']['name'])} -> {_id(edge['to_node']['name'])}{route};"
        )
    for node in nodes:
        for tool in node.get("tools", []):
            lines.append(f'  {_id(tool["name"])} [style="rounded,dashed"];')
            lines.append(f'  {_id(node["name"])} -> {_id(tool["name"])} [style="dashed"];')
    lines.append("}")
    return "\n".join(lines)


def _tree(described: dict[str, Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """An agent and its sub-agents as nodes and edges."""
    nodes = [described]
    edges: list[dict[str, Any]] = []
    pending = [described]
    while pending:
        parent = pending.pop(0)
        for sub in parent.get("sub_agents", []):
            nodes.append(sub)
            edges.append({"from_node": {"name": parent["name"]}, "to_node": {"name": sub["name"]}})
            pending.append(sub)
    return nodes, edges


def _node(node: dict[str, Any], highlight: str | None) -> str:
    name = node["name"]
    if node.get("type") == "start":
        return f'{_id(name)} [label="START" shape="oval"]'
    fill = f' fillcolor="{_HIGHLIGHT}" fontcolor="#0F172A"' if name == highlight else ""
    shape = ' shape="oval"' if node.get("type") == "join" else ""
    return f'{_id(name)} [label="{_text(name)}" tooltip="{node.get("type", "agent")}"{shape}{fill}]'


def _text(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"')


def _id(name: str) -> str:
    return f'"{_text(name)}"'
