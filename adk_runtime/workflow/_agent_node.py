"""An agent as a workflow node: it runs one turn on the node's input; its answer is the output."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, ClassVar

from google.genai import types
from pydantic import InstanceOf

from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.llm_agent import LlmAgent
from adk_runtime.events.event import Event
from adk_runtime.utils.content_utils import extract_text_from_content, to_user_content
from adk_runtime.workflow._base_node import BaseNode

if TYPE_CHECKING:
    from adk_runtime.agents.invocation_context import InvocationContext
    from adk_runtime.workflow._context import NodeContext

__all__ = ["AgentNode"]


class AgentNode(BaseNode):
    """Runs ``agent`` (an ``LlmAgent``, or any ``BaseAgent``) as a node.

    The agent runs on its own branch (the node names of its path, ``wf.review``): it sees
    the user's messages and its own earlier runs, not the agents of other nodes, which may
    run at the same time. The node's input, unless it is the user's message the invocation
    started with, is committed first as a user message on that branch (stamped with the
    node's path), so the agent answers it and a resumed run finds it. The agent's events are
    the node's. Its output is the
    agent's final answer: the text of its last final response, or the value parsed with an
    ``LlmAgent``'s ``output_schema``. An agent that pauses on a long-running call leaves the
    node waiting; the user's answer to the call runs the node (the agent) again, and the
    agent continues from its events. A ``mode="task"`` agent's output is the result it
    handed over with ``finish_task``.
    """

    agent: InstanceOf[BaseAgent]
    branch_per_run: bool = False
    """Each run on a branch of its own (the items of a parallel worker, which run at once)."""
    rerun_on_resume: bool = True
    runs_through_interrupts: ClassVar[bool] = True

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        invocation = ctx.invocation_context
        mine = [
            e
            for e in invocation.session.events
            if e.invocation_id == ctx.invocation_id and e.node_info.path == ctx.node_path
        ]
        branch = _branch(ctx.node_path)
        if self.branch_per_run:
            branch += "@" + ctx.node_path.rpartition("@")[2]
        if node_input is not None and not mine and not _is_invocation_message(ctx, node_input):
            yield Event(author="user", content=to_user_content(node_input), branch=branch)
        agent_context = self._agent_context(invocation, resumed=bool(mine), branch=branch)
        # A resumed run starts from what the agent committed (its answer may be in the log
        # while the node's output event is not: the process died between the two).
        answer = _latest_answer(mine, None)
        seen = list(mine)
        async with aclosing(self.agent.run_async(agent_context)) as events:
            async for event in events:
                answer = _latest_answer([event], answer)
                seen.append(event)
                yield event
        if isinstance(self.agent, LlmAgent) and self.agent.mode == "task":
            finished, result = _task_result(self.agent, seen)
            if finished:
                yield Event(output=result)
        elif answer is not None:
            yield Event(output=self._output_of(answer))

    def _agent_context(
        self, invocation: InvocationContext, *, resumed: bool, branch: str
    ) -> InvocationContext:
        """The invocation as the agent sees it, on the node's branch.

        A run that had not begun (nothing on its path) never resumes an earlier one.
        """
        copy = invocation.model_copy(update={"branch": branch})
        if not resumed:
            copy._resume = None
        return copy

    def _output_of(self, answer: Event) -> Any:
        text = extract_text_from_content(answer.content)
        schema = self.agent.output_schema if isinstance(self.agent, LlmAgent) else None
        if schema is None or not text.strip():
            return text
        from adk_runtime.agents._structured_output import validate_output

        return validate_output(schema, text)


def _task_result(agent: LlmAgent, events: list[Event]) -> tuple[bool, Any]:
    """Whether a task agent's ``events`` end its task, and the result it handed over."""
    from adk_runtime.agents.llm.task._finish_task_tool import (
        FINISH_TASK_TOOL_NAME,
        FinishTaskTool,
        is_finish_task_terminal_fr,
    )

    args: dict[str, Any] | None = None
    for event in events:
        if event.partial or event.author != agent.name:
            continue
        for call in event.get_function_calls():
            if call.name == FINISH_TASK_TOOL_NAME:
                args = dict(call.args or {})
        if args is not None and is_finish_task_terminal_fr(event):
            return True, FinishTaskTool(agent).result_of(args)
    return False, None


def _branch(path: str) -> str:
    """The agent's branch: the node names of its path (``wf@1/review@2`` → ``wf.review``).

    Its events are seen by its later runs, not by agents on other nodes (which get what
    they need as their input); events on no branch (the user's messages) are seen by all.
    """
    return ".".join(segment.rpartition("@")[0] or segment for segment in path.split("/"))


def _latest_answer(events: list[Event], answer: Event | None) -> Event | None:
    """The agent's answer after ``events``: a new one replaces it, a pause clears it."""
    for event in events:
        if _is_answer(event):
            answer = event
        elif event.long_running_tool_ids:
            answer = None
    return answer


def _is_answer(event: Event) -> bool:
    return (
        event.author != "user"
        and not event.partial
        and not event.long_running_tool_ids
        and event.is_final_response()
        and event.content is not None
        and any(part.text for part in event.content.parts or [])
    )


def _is_invocation_message(ctx: NodeContext, node_input: Any) -> bool:
    message = ctx.invocation_context.user_content
    if isinstance(node_input, types.Content) and message is not None:
        return node_input.parts == message.parts
    return False
