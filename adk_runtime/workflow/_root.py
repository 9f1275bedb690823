"""A node at the root of a Runner: ``Runner(node=workflow)`` runs it as its agent."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import InstanceOf

from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.workflow._base_node import BaseNode
from adk_runtime.workflow._errors import DynamicNodeFailError
from adk_runtime.workflow._run import Place, WorkflowRun

if TYPE_CHECKING:
    from google.genai import types

    from adk_runtime.agents.invocation_context import InvocationContext
    from adk_runtime.events.event import Event

__all__ = ["NodeAgent", "as_agent"]


class NodeAgent(BaseAgent):
    """The agent the Runner runs for a root node: one run of the node per invocation.

    Its input is the message that started the invocation (also ``user_content`` when an
    answer continues it). The run's path is ``<node name>@1``; its events are committed one
    by one as the node makes them. The invocation continues from its log when it is run again
    (an answer to a node's question, or the resume of an interrupted invocation), so it
    resumes itself; the root node always runs again with the answers (``ctx.resume_inputs``).
    A child's error that escapes (``DynamicNodeFailError``) is raised as the child's own.
    """

    node: InstanceOf[BaseNode]
    resumes_itself: ClassVar[bool] = True

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        run = WorkflowRun(ctx)
        path = f"{self.node.name}@1"
        if run.history.completed(path) is not None:
            return  # the log has the whole run: nothing is left to do
        ctx.user_content = _first_message(ctx)
        place = Place(path, self.node.name)
        main = run.advance(self.node, ctx.user_content, place, rerun=True)
        try:
            async for event in run.events(main):
                yield event
        except DynamicNodeFailError as failure:  # the child's own error reaches the caller
            error: Exception = failure
            while isinstance(error, DynamicNodeFailError):
                error = error.error
            raise error from failure


def as_agent(root: Any) -> Any:
    """``root`` as the Runner's agent: a node is wrapped in a :class:`NodeAgent`."""
    if isinstance(root, BaseNode):
        return NodeAgent(name=root.name, description=root.description, node=root)
    return root


def _first_message(ctx: InvocationContext) -> types.Content | None:
    """The message that started the invocation (not a later answer that continues it)."""
    for event in ctx.session.events:
        if (
            event.invocation_id == ctx.invocation_id
            and event.author == "user"
            and not event.node_info.path
            and event.content is not None
            and not event.get_function_responses()
        ):
            return event.content
    return ctx.user_content
