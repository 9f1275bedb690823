"""SequentialAgent: run the sub-agents one after another."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing

from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = ["SequentialAgent"]


class SequentialAgent(BaseAgent):
    """Runs each sub-agent in order, in the same invocation (they share ``temp:`` state)."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for sub_agent in self.sub_agents:
            async with aclosing(sub_agent.run_async(ctx)) as events:
                async for event in events:
                    yield event
            if ctx.end_invocation:
                return
