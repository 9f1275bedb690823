"""A tool as a workflow node: called with the node's input as its arguments."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from pydantic import InstanceOf

from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.workflow._base_node import BaseNode
from adk_runtime.workflow._errors import WorkflowDataError

if TYPE_CHECKING:
    from adk_runtime.workflow._context import NodeContext

__all__ = ["ToolNode"]


class ToolNode(BaseNode):
    """Calls ``tool`` with the node's input (a dict of arguments; None: no arguments).

    The tool's result is the node's output; its ``tool_context`` is the node's context, so
    its state writes are committed with the output.
    """

    tool: InstanceOf[BaseTool]

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        if node_input is None:
            node_input = {}
        if not isinstance(node_input, dict):
            raise WorkflowDataError(
                f"Tool node {self.name!r} takes a dict of arguments as input, not "
                f"{type(node_input).__name__}."
            )
        yield await self.tool.run_async(args=dict(node_input), tool_context=ctx)
