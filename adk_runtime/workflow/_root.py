"""A node at the root of a Runner: ``Runner(node=workflow)`` runs it as its agent."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import InstanceOf

from adk_runtime.agents._answer_checks import check_by_author
from adk_runtime.agents._confirmation import CLIENT_CALLS
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.errors import InputValidationError
from adk_runtime.events._calls import calling_event
from adk_runtime.workflow._agent_node import AgentNode
from adk_runtime.workflow._base_node import BaseNode
from adk_runtime.workflow._errors import DynamicNodeFailError
from adk_runtime.workflow._interrupts import check_node_message, waiting_task_question
from adk_runtime.workflow._parallel_worker import ParallelWorker
from adk_runtime.workflow._run import Place, WorkflowRun
from adk_runtime.workflow._workflow import Workflow

if TYPE_CHECKING:
    from google.genai import types

    from adk_runtime.core.invocation_context import InvocationContext
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

    def _check_client_message(self, ctx: InvocationContext, message: Event) -> None:
        """Refuse a message that answers the nodes' calls wrongly (``check_node_message``)."""
        check_node_message(ctx.session.events, message)

    async def _check_client_answers(
        self, ctx: InvocationContext, message: Event, answered: list[str]
    ) -> None:
        """Check each confirmation and credential answer against the one that asked.

        Each answer goes to the author of the call it answers: an agent of a node (found in
        the graph; one only a function node's code runs is checked by its name: its stored
        requests, not its tools), or the workflow itself for its function nodes' credential
        requests (``auth_config``), which makes no confirmation requests.
        """
        by_author: dict[str, list[types.Part]] = {}
        parts = message.content.parts or [] if message.content is not None else []
        for part in parts:
            response = part.function_response
            if response is None or response.name not in CLIENT_CALLS:
                continue
            asked = calling_event(ctx.session.events, response.id or "")
            if asked is None:  # check_node_message refused it already; kept as a guard
                raise InputValidationError(f"The answer {response.id!r} answers no stored call.")
            by_author.setdefault(asked.author, []).append(part)
        # None for the nodes' own requests (author: the root)
        await check_by_author(ctx, message, by_author, self.node_agent)

    def _question_awaiting_reply(self, events: list[Event]) -> Event | None:
        """The question a ``mode="task"`` agent node asked the user and still waits on.

        Raises:
            InputValidationError: Task nodes of two runs wait for a reply at once.
        """
        return waiting_task_question(events)

    def node_agent(self, name: str) -> BaseAgent | None:
        """The agent called ``name`` that a node of the graph runs (or one of its sub-agents).

        Agents of agent nodes, of nested workflows and parallel workers; not an agent a
        function node runs with ``ctx.run_node``, which exists only in its code.
        """
        return _agent_in(self.node, name)


def _agent_in(node: BaseNode, name: str) -> BaseAgent | None:
    if isinstance(node, AgentNode):
        return node.agent.find_agent(name)
    if isinstance(node, ParallelWorker):
        return _agent_in(node.node, name)
    if isinstance(node, Workflow):
        for sub_node in node.sub_nodes:
            found = _agent_in(sub_node, name)
            if found is not None:
                return found
    return None


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
