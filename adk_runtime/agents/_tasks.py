"""Delegated tasks: a parent's call to a ``task`` or ``single_turn`` sub-agent (``LlmAgent.mode``).

The parent's model calls the sub-agent like a tool (a ``DelegationTool``). The call is not run
as a tool: the sub-agent runs right there, in the same session and invocation, and every event
it yields carries ``isolation_scope`` = the call's id, so it sees only its task (the call's
arguments, as its first user message) and its own work, and the parent never sees that work.
Each event is committed by the Runner before the sub-agent goes on, as for any agent.

- ``single_turn``: its final answer (parsed by its ``output_schema``) answers the call.
- ``task``: it ends with ``finish_task``; the accepted result answers the call. When it ends a
  run with text instead (a question for the user), the parent's call stays open and the
  invocation ends. The user's next message is committed in the task's scope (the Runner asks
  :func:`active_scope`), the parent runs again and, before calling its model, hands the open
  call back to the sub-agent (:func:`resume_delegations`), which now sees the reply. The log
  is all the state there is: any replica, after any restart, continues the task.

The response to the parent's call is committed in the parent's scope, authored by the parent.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

import pydantic
from google.genai import types

from adk_runtime.events import Event
from adk_runtime.events._calls import calling_event
from adk_runtime.events.rewind import live_events
from adk_runtime.tools.agent_tool import DelegationTool
from adk_runtime.utils._problems import problems
from adk_runtime.utils.content_utils import extract_text_from_content

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.invocation_context import InvocationContext

__all__ = [
    "Delegations",
    "active_scope",
    "delegated_calls",
    "delegating_event",
    "resume_delegations",
    "task_input",
]

_SINGLE_TURN_NOTE = (
    "No one will answer questions about this task: do it with what is given above, and "
    "give your result as your answer."
)


def delegated_calls(call_event: Event, tools: dict[str, BaseTool]) -> list[types.FunctionCall]:
    """The calls of ``call_event`` that delegate a task to a sub-agent, in order."""
    return [
        call
        for call in call_event.get_function_calls()
        if call.id and call.name and isinstance(tools.get(call.name), DelegationTool)
    ]


class Delegations:
    """Run delegated calls one after another; see the module's doc.

    Attributes:
        waiting: A task agent stopped to wait for the user: its call has no response yet and
            the delegating agent must stop too.
        last_event: The last response to a delegated call yielded, if any.
    """

    def __init__(
        self,
        agent: LlmAgent,
        ctx: InvocationContext,
        calls: list[types.FunctionCall],
        tools: dict[str, BaseTool],
    ) -> None:
        self.agent = agent
        self.ctx = ctx
        self.calls = calls
        self.tools = tools
        self.waiting = False
        self.last_event: Event | None = None

    async def events(self) -> AsyncGenerator[Event, None]:
        """The sub-agents' events and the response to each delegated call."""
        for call in self.calls:
            tool = self.tools[call.name or ""]
            assert isinstance(tool, DelegationTool)
            refused = _refused_input(tool.agent, call)
            if refused is not None:  # the sub-agent does not run; the model may call again
                self.last_event = _response_event(self.agent, self.ctx, call, refused)
                yield self.last_event
                continue
            run = _TaskRun(self.ctx, call, tool.agent)
            async for event in run.events():
                yield event
            if run.waiting:
                self.waiting = True
                return
            self.last_event = _response_event(self.agent, self.ctx, call, run.response())
            yield self.last_event


class _TaskRun:
    """One run of a delegated sub-agent on its task."""

    def __init__(self, ctx: InvocationContext, call: types.FunctionCall, agent: BaseAgent) -> None:
        assert call.id is not None
        self.scope = call.id
        self.ctx = ctx.model_copy(update={"isolation_scope": call.id, "end_invocation": False})
        self.agent = agent
        self.is_task = getattr(agent, "mode", None) == "task"
        self.finish_args: dict[str, Any] | None = None
        self.result: Any = None
        self.finished = False
        self.paused = False
        self.answer: Event | None = None

    @property
    def waiting(self) -> bool:
        """The agent stopped before its result.

        A question for the user (a task agent's text), or a call that waits for the client
        (a long-running tool, a confirmation request).
        """
        return self.paused or (self.is_task and not self.finished)

    async def events(self) -> AsyncGenerator[Event, None]:
        """The agent's events; none when its committed events already hold the result.

        A run cut short after the agent's result was committed (and before the response to
        the delegating call was) takes the result from the log instead of running again.
        """
        for event in self.ctx.session.events:
            if event.isolation_scope == self.scope:
                self._note(event, live=False)
        if self.finished:
            return
        async for event in self.agent.run_async(self.ctx):
            if event.isolation_scope is None:
                event.isolation_scope = self.scope
            if not event.partial:
                self.paused = self.paused or self.ctx.should_pause_invocation(event)
                self._note(event, live=True)
            yield event

    def _note(self, event: Event, *, live: bool) -> None:
        """Follow the agent's ``finish_task`` calls and answers in a complete event.

        The accepted result goes into ``output_key`` with a ``live`` event (one committed
        before carried it already).
        """
        from adk_runtime.agents.llm.task._finish_task_tool import (
            FINISH_TASK_TOOL_NAME,
            FinishTaskTool,
            is_finish_task_terminal_fr,
        )

        if event.author != self.agent.name:
            return
        for call in event.get_function_calls():
            if call.name == FINISH_TASK_TOOL_NAME:
                self.finish_args = dict(call.args or {})
        if self.is_task:
            if self.finish_args is not None and is_finish_task_terminal_fr(event):
                self.result = FinishTaskTool(_llm(self.agent)).result_of(self.finish_args)
                self.finished = True
                key = getattr(self.agent, "output_key", None)
                if key and live:
                    event.actions.state_delta[key] = self.result
        elif event.is_final_response() and event.content is not None:
            self.answer = event

    def response(self) -> dict[str, Any]:
        """The response to the delegating call."""
        if self.is_task:
            result = self.result
            return result if isinstance(result, dict) else {"output": result}
        answer = _answer(self.agent, self.answer)
        return answer if isinstance(answer, dict) else {"result": answer}


def _refused_input(agent: BaseAgent, call: types.FunctionCall) -> dict[str, Any] | None:
    """The error answering a call whose arguments do not follow the agent's ``input_schema``."""
    schema = getattr(agent, "input_schema", None)
    if schema is None:
        return None
    try:
        schema.model_validate(call.args or {})
    except pydantic.ValidationError as exc:
        wrong = problems(exc)
        return {"error": f"{agent.name!r} was not given its task: {wrong}. Call it again."}
    return None


def _llm(agent: BaseAgent) -> LlmAgent:
    from adk_runtime.agents.llm_agent import LlmAgent

    assert isinstance(agent, LlmAgent)
    return agent


def _answer(agent: BaseAgent, event: Event | None) -> Any:
    """A single-turn agent's result: its final text, parsed by its ``output_schema``."""
    from adk_runtime.tools.set_model_response_tool import validate_output

    if event is None or event.content is None:
        return ""
    text = extract_text_from_content(event.content)
    schema = getattr(agent, "output_schema", None)
    if schema is None or not text.strip():
        return text or (event.error_message or "")
    try:
        return validate_output(schema, text)
    except (pydantic.ValidationError, ValueError) as exc:
        kind = type(exc).__name__
        return {"error": f"{agent.name!r} answered outside its output_schema ({kind})."}


def _response_event(
    agent: LlmAgent, ctx: InvocationContext, call: types.FunctionCall, response: dict[str, Any]
) -> Event:
    part = types.Part(
        function_response=types.FunctionResponse(id=call.id, name=call.name, response=response)
    )
    return Event(
        invocation_id=ctx.invocation_id,
        author=agent.name,
        branch=ctx.branch,
        isolation_scope=ctx.isolation_scope,
        content=types.Content(role="user", parts=[part]),
    )


def resume_delegations(agent: LlmAgent, ctx: InvocationContext) -> Delegations:
    """The agent's delegated calls that have no response yet, to be handed back.

    A task waiting for the user's reply, or a run cut short: their sub-agents go on before the
    agent's next model call.
    """
    tools: dict[str, BaseTool] = {
        t.name: t for t in agent._task_tools(set()) if isinstance(t, DelegationTool)
    }
    if not tools:
        return Delegations(agent, ctx, [], tools)
    events = live_events(ctx.session.events)
    answered = {r.id for e in events for r in e.get_function_responses() if r.id}
    calls = [
        call
        for event in events
        if event.author == agent.name
        and event.branch == ctx.branch
        and event.isolation_scope == ctx.isolation_scope
        for call in delegated_calls(event, tools)
        if call.id not in answered
    ]
    return Delegations(agent, ctx, calls, tools)


def active_scope(
    events: list[Event], root: BaseAgent, call_event: Event | None = None
) -> str | None:
    """The scope of the task waiting for the user's reply, if any (its call is unanswered).

    A new message from the user is committed in that scope: it goes to the task agent. A
    message that answers a call (``call_event``) is committed in that call's scope.
    """
    if call_event is not None:
        return call_event.isolation_scope
    if not _has_task_agents(root):
        return None
    live = live_events(events)
    answered = {r.id for event in live for r in event.get_function_responses() if r.id}
    for event in reversed(live):
        scope = event.isolation_scope
        if scope is None or scope in answered:
            continue
        agent = root.find_agent(event.author) if event.author != "user" else None
        if agent is not None and getattr(agent, "mode", None) == "task":
            return scope
    return None


def delegating_event(events: list[Event], scope: str) -> Event | None:
    """The event holding the call that delegated the task ``scope``."""
    return calling_event(events, scope)


def _has_task_agents(agent: BaseAgent) -> bool:
    return getattr(agent, "mode", None) == "task" or any(
        _has_task_agents(sub) for sub in agent.sub_agents
    )


def task_input(events: list[Event], scope: str, single_turn: bool) -> types.Content | None:
    """A delegated agent's first user message: the arguments of the call that delegated it."""
    for event in events:
        for call in event.get_function_calls():
            if call.id == scope:
                text = json.dumps(call.args or {}, ensure_ascii=False, default=str)
                parts = [types.Part(text=text)]
                if single_turn:
                    parts.append(types.Part(text=_SINGLE_TURN_NOTE))
                return types.Content(role="user", parts=parts)
    return None
