"""SequentialAgent: run the sub-agents one after another."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import ClassVar

from adk_runtime.agents import _resume
from adk_runtime.agents.base_agent import BaseAgent, BaseAgentState
from adk_runtime.agents.base_agent_config import BaseAgentConfig
from adk_runtime.agents.invocation_context import InvocationContext
from adk_runtime.agents.sequential_agent_config import SequentialAgentConfig
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

    Its progress is in the log: after each sub-agent but the last, a content-less event whose
    ``agent_state`` is a :class:`SequentialAgentState` naming the sub-agent to run next; at the
    end, one with ``end_of_agent``. A resumed invocation
    (:mod:`adk_runtime.agents._resume`) continues with the sub-agent it was running.
    """

    config_type: ClassVar[type[BaseAgentConfig]] = SequentialAgentConfig
    resumes_itself: ClassVar[bool] = True

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        resumed = _resume.checkpoint_of(self, ctx)
        if resumed is not None and resumed.ended:
            return
        start = 0
        if resumed is not None:
            start = _resume.sub_agent_index(self, resumed.state)
        sub_ctx = _resume.after(ctx, resumed)
        for index in range(start, len(self.sub_agents)):
            async with aclosing(self.sub_agents[index].run_async(sub_ctx)) as events:
                async for event in events:
                    yield event
            if ctx.end_invocation or sub_ctx.end_invocation:
                return
            if index + 1 < len(self.sub_agents):
                state = SequentialAgentState(current_sub_agent=self.sub_agents[index + 1].name)
                yield _resume.checkpoint(self, ctx, state.model_dump())
        yield _resume.checkpoint(self, ctx)
