"""``node(..., parallel_worker=True)``: a node run once per item of its input, at once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from google.genai import types
from pydantic import Field, PrivateAttr

from adk_runtime.utils.content_utils import extract_text_from_content
from adk_runtime.workflow._base_node import BaseNode
from adk_runtime.workflow._errors import NodeInterrupted, WorkflowConfigurationError

if TYPE_CHECKING:
    from adk_runtime.workflow._context import NodeContext

__all__ = ["ParallelWorker"]


class ParallelWorker(BaseNode):
    """Runs ``node`` once per item of the input list, at most ``max_parallel_workers`` at once.

    Its output is the list of the runs' outputs, in the items' order. An input that is not a
    list is one item (a message whose text is a JSON list is that list). Each item's run is a
    child run (``<worker path>/<node>@<n>``, numbered in the items' order), so a resumed
    worker runs only the items whose output is not committed. A failing item cancels the
    others and fails the worker (with ``DynamicNodeFailError``); an item that asks the user
    something lets the others finish, then the worker waits for the answers. An agent's
    items each run on a branch of their own, so none sees another's conversation.
    """

    max_parallel_workers: int | None = Field(default=None, ge=1)
    rerun_on_resume: bool = True
    _node: BaseNode = PrivateAttr()

    def __init__(self, *, node: Any, **fields: Any) -> None:
        """Wrap ``node`` (a node, or a function, agent or tool made one); it takes its name.

        Raises:
            WorkflowConfigurationError: ``node`` is START, or cannot be a node.
        """
        if not isinstance(node, BaseNode):
            from adk_runtime.workflow._node import build_node

            node = build_node(node)
        if node.name == "__START__":
            raise WorkflowConfigurationError("A parallel worker cannot wrap START.")
        fields.setdefault("name", node.name)
        fields.setdefault("description", node.description)
        super().__init__(**fields)
        from adk_runtime.workflow._agent_node import AgentNode

        if isinstance(node, AgentNode):  # items run at once: none may see another's events
            node = node.model_copy(update={"branch_per_run": True})
        self._node = node

    @property
    def node(self) -> BaseNode:
        """The node run for each item."""
        return self._node

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        items = _items(node_input)
        run_ids = ctx.next_run_ids(self._node, len(items))
        limit = asyncio.Semaphore(self.max_parallel_workers or max(len(items), 1))

        async def one(item: Any, run_id: str) -> Any:
            async with limit:
                return await ctx.run_node(self._node, item, run_id=run_id)

        tasks = [asyncio.ensure_future(one(i, r)) for i, r in zip(items, run_ids, strict=True)]
        try:
            await _settle(tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        waiting = [
            rid
            for task in tasks
            if isinstance(task.exception(), NodeInterrupted)
            for rid in task.exception().interrupts  # type: ignore[union-attr]
        ]
        if waiting:
            raise NodeInterrupted(waiting)
        yield [task.result() for task in tasks]


async def _settle(tasks: list[asyncio.Task[Any]]) -> None:
    """Wait for every task; the first error other than a question cancels the rest."""
    pending = set(tasks)
    while pending:
        done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            error = task.exception()
            if error is not None and not isinstance(error, NodeInterrupted):
                raise error


def _items(node_input: Any) -> list[Any]:
    if isinstance(node_input, types.Content):
        text = extract_text_from_content(node_input)
        try:
            node_input = json.loads(text)
        except ValueError:
            node_input = text
    return list(node_input) if isinstance(node_input, list | tuple) else [node_input]
