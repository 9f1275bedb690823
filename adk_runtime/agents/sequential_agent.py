"""SequentialAgent: run the sub-agents one after another."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import ClassVar

from adk_runtime.agents import _resume
from adk_runtime.agents.sequential_agent_config import SequentialAgentConfig
from adk_runtime.core.base_agent import BaseAgent, BaseAgentState
from adk_runtime.core.base_agent_config import BaseAgentConfig
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = ["SequentialAgent", "SequentialAgentState"]


class SequentialAgentState(BaseAgentState):
    """A ``SequentialAgent``'s checkpoint.

    Attributes:
        current_sub_agent: The sub-agent to run next (empty: the first).
    """

    current_sub_agent: str = ""


class SequentialAgent(BaseAgent):
    """Runs each sub-agent in order, in the same invocation (they share ``temp:`` state).

    When the context records checkpoints (the Runner's invocations, or a resumable app; see
    :mod:`adk_runtime.agents._resume`), its progress is in the log as in google-adk: before
    each sub-agent a content-less event whose ``agent_state`` is a
    :class:`SequentialAgentState` naming it, at the end one with ``end_of_agent``. A resumed
    invocation continues with the sub-agent it was running. A sub-agent that pauses the
    invocation (a long-running call) stops it here too.
    """

    config_type: ClassVar[type[BaseAgentConfig]] = SequentialAgentConfig
    resumes_itself: ClassVar[bool] = True
    _resumed_by_inner_answers: ClassVar[bool] = True

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        to_run, resumed = _resume.workflow_start(self, ctx)
        if not to_run:
            return
        start = 0 if resumed is None else _resume.sub_agent_index(self, resumed.state)
        sub_ctx = _resume.after(ctx, resumed)
        continuing = resumed is not None  # its checkpoint for that sub-agent is committed
        for sub_agent in self.sub_agents[start:]:
            if ctx.records_checkpoints and not continuing:
                state = SequentialAgentState(current_sub_agent=sub_agent.name)
                yield _resume.checkpoint(self, ctx, state)
            continuing = False
            paused = False
            async with aclosing(sub_agent.run_async(sub_ctx)) as events:
                async for event in events:
                    yield event
                    paused = paused or ctx.should_pause_invocation(event)
            if paused or ctx.end_invocation or sub_ctx.end_invocation:
                return
        if ctx.records_checkpoints:
            yield _resume.checkpoint(self, ctx, None)

    async def _run_live_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        # Each sub-agent's live run in turn (an LlmAgent's is google-adk's Live API, which
        # raises UnsupportedFeatureError here).
        for sub_agent in self.sub_agents:
            async with aclosing(sub_agent.run_live(ctx)) as events:
                async for event in events:
                    yield event
