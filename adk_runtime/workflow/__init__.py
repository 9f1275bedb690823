"""Workflow graphs (``google.adk.workflow`` → ``adk_runtime.workflow``).

A ``Workflow`` runs a graph of nodes (functions, agents, tools, other workflows) by following
its edges, with routes, fan-out and fan-in, loops, retries and timeouts. Run one with
``Runner(node=workflow, ...)``: every event a node makes is committed before the node goes
on, a node's question to the user (``yield RequestInput(...)``) pauses the invocation until
the answer comes, and a paused or interrupted invocation continues from its log, without
running again what finished.
"""

from adk_runtime.core._adapters import register_agent_adapter, register_tool_adapter
from adk_runtime.workflow._base_node import START, BaseNode
from adk_runtime.workflow._context import NodeContext
from adk_runtime.workflow._errors import (
    NodeTimeoutError,
    SchemaMismatchError,
    WorkflowConfigurationError,
    WorkflowDataError,
)
from adk_runtime.workflow._function_node import FunctionNode
from adk_runtime.workflow._graph import DEFAULT_ROUTE, Edge
from adk_runtime.workflow._join_node import JoinNode
from adk_runtime.workflow._node import Node, node
from adk_runtime.workflow._node_tool import as_tool
from adk_runtime.workflow._retry_config import RetryConfig
from adk_runtime.workflow._root import as_agent
from adk_runtime.workflow._workflow import Workflow

__all__ = [
    "DEFAULT_ROUTE",
    "START",
    "BaseNode",
    "Edge",
    "FunctionNode",
    "JoinNode",
    "Node",
    "NodeContext",
    "NodeTimeoutError",
    "RetryConfig",
    "SchemaMismatchError",
    "Workflow",
    "WorkflowConfigurationError",
    "WorkflowDataError",
    "node",
]

# A node passed where an agent goes runs as the NodeAgent made of it, and one among an
# agent's tools is offered as a NodeTool (the core asks; it imports no workflow code).
register_agent_adapter(as_agent)
register_tool_adapter(as_tool)
