"""An agent as a workflow node: it runs one turn on the node's input; its answer is the output."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from google.genai import types
from pydantic import InstanceOf

from adk_runtime.agents.llm_agent import LlmAgent
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.events.event import Event
from adk_runtime.events.event_actions import EventActions
from adk_runtime.utils.content_utils import extract_text_from_content, to_user_content
from adk_runtime.workflow._base_node import BaseNode
from adk_runtime.workflow._interrupts import is_task_question, task_question
from adk_runtime.workflow._run import is_failure_report

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
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
    agent continues from its events.

    A ``mode="task"`` agent works in the scope of the node's path (its model sees its input,
    its own work and the user's replies); its output is the result it handed over with
    ``finish_task``, which also goes into its ``output_key``. When its run ends otherwise
    (it answered in text: it asked the user), the node commits a question
    (``_interrupts.task_question``, the agent's text) and waits; nothing downstream runs
    before the task is finished. The reply (a plain message the Runner commits on the node's
    path, or a function response to the question) runs the node again, and the agent goes
    on with the reply in view.
    """

    agent: InstanceOf[BaseAgent]
    branch_per_run: bool = False
    """Each run on a branch of its own (the items of a parallel worker, which run at once)."""
    branch: str | None = None
    """The branch its conversation is kept on instead of its path's (``ctx.run_node(...,
    override_branch=...)``); with ``branch_per_run``, each run on a sub-branch of it."""
    isolation_scope: str | None = None
    """The scope its events are in instead of the default (``override_isolation_scope``)."""
    rerun_on_resume: bool = True

    async def _run_impl(self, *, ctx: NodeContext, node_input: Any) -> AsyncGenerator[Any, None]:
        invocation = ctx.invocation_context
        mine = [
            e
            for e in invocation.session.events
            if e.invocation_id == ctx.invocation_id
            and e.node_info.path == ctx.node_path
            and not is_failure_report(e, ctx)  # a failed attempt's: not the agent's
        ]
        branch = self._branch_of(ctx.node_path)
        task = isinstance(self.agent, LlmAgent) and self.agent.mode == "task"
        # a task sees its input and its own work only (google-adk: its scope is its path)
        scope = self.isolation_scope or (ctx.node_path if task else None)
        seen = list(mine)
        firsts = _first_messages(ctx, node_input, mine, task=task)
        for content in firsts:
            seen.append(Event(author="user", content=content, branch=branch, isolation_scope=scope))
            yield seen[-1]
        # the agent resumes its own run if it had begun one since the user last spoke
        began = bool(mine) and mine[-1].author != "user" and not firsts
        agent_context = self._agent_context(invocation, resumed=began, branch=branch, scope=scope)
        # A resumed run starts from what the agent committed (its answer may be in the log
        # while the node's output event is not: the process died between the two).
        answer = _latest_answer(mine, None)
        async with aclosing(self.agent.run_async(agent_context)) as events:
            async for event in events:
                if event.isolation_scope is None:
                    event.isolation_scope = scope
                answer = _latest_answer([event], answer)
                seen.append(event)
                yield event
        for event in self._ending(seen, answer, branch=branch, scope=scope):
            yield event

    def _branch_of(self, path: str) -> str:
        """The run's branch: its path's node names (or ``branch``), per run if asked."""
        if self.branch is None:
            branch = _branch(path)
        else:
            branch = self.branch + (f".{self.name}" if self.branch_per_run else "")
        if self.branch_per_run:
            branch += "@" + path.rpartition("@")[2]
        return branch

    def _ending(
        self, seen: list[Event], answer: Event | None, *, branch: str, scope: str | None
    ) -> list[Event]:
        """The run's last event: its output; or a task agent's question, the node waiting."""
        if not isinstance(self.agent, LlmAgent) or self.agent.mode != "task":
            return [] if answer is None else [Event(output=self._output_of(answer))]
        finished, result = _task_result(self.agent, seen)
        if finished:  # the result is the output, and goes into output_key (as delegated)
            key = self.agent.output_key
            actions = EventActions(state_delta={key: result} if key else {})
            return [Event(output=result, actions=actions)]
        if _waits_on_a_call(seen):
            return []  # a long-running call's answer resumes it (the node waits on the call)
        # not finished: the task waits for the user (google-adk: it waits for its output);
        # its text, if it said something, is the question
        event = task_question(_open_question(seen))
        event.branch, event.isolation_scope = branch, scope
        return [event]

    def _agent_context(
        self, invocation: InvocationContext, *, resumed: bool, branch: str, scope: str | None
    ) -> InvocationContext:
        """The invocation as the agent sees it, on the node's branch (and in its scope).

        A run that had not begun (nothing of the agent's on its path since the user's last
        message, or its reply) never resumes an earlier one.
        """
        copy = invocation.model_copy(update={"branch": branch, "isolation_scope": scope})
        if not resumed:
            copy._resume = None
        return copy

    def _output_of(self, answer: Event) -> Any:
        text = extract_text_from_content(answer.content)
        schema = self.agent.output_schema if isinstance(self.agent, LlmAgent) else None
        if schema is None or not text.strip():
            return text
        from adk_runtime.tools.set_model_response_tool import validate_output

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


def _open_question(events: list[Event]) -> str | None:
    """The text of a task agent's answer that nothing followed: its question to the user."""
    question = None
    for event in events:
        if event.partial:
            continue
        if _is_answer(event):
            question = extract_text_from_content(event.content)
        elif event.author == "user" or event.get_function_calls() or event.get_function_responses():
            question = None  # a reply, a tool call, or the node's question already asked
    return question


def _first_messages(
    ctx: NodeContext, node_input: Any, mine: list[Event], *, task: bool
) -> list[types.Content]:
    """What the node commits as the user's before its agent runs.

    Its input, once (not when it is the message the invocation started with, which the
    agent sees anyway, unless the agent is a task, which sees its scope only); and an answer
    to the task's question given as a function response.
    """
    contents = []
    own_input = task or not _is_invocation_message(ctx, node_input)
    if node_input is not None and not mine and own_input:
        contents.append(to_user_content(node_input))
    reply = _unreplied_answer(mine, ctx.resume_inputs) if task else None
    if reply is not None:
        contents.append(to_user_content(reply))
    return contents


def _waits_on_a_call(events: list[Event]) -> bool:
    """Whether the agent's last event is a long-running call (not the node's question)."""
    last = next((e for e in reversed(events) if not e.partial and e.author != "user"), None)
    if last is None or not last.long_running_tool_ids:
        return False
    return not any(is_task_question(call) for call in last.get_function_calls())


def _unreplied_answer(events: list[Event], answers: dict[str, Any] | None) -> Any:
    """The answer to the node's last question if the log holds no reply to it yet.

    A plain message replying to the question is on the run's path already; an answer given
    as a function response is not, and is committed as the user's message for the agent.
    """
    for event in reversed(events):
        if event.author == "user":
            return None
        for call in event.get_function_calls():
            if is_task_question(call):
                return (answers or {}).get(call.id or "")
    return None


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
