"""LoopAgent: run the sub-agents in order, again and again, until one escalates."""

from __future__ import annotations

import itertools
from collections.abc import AsyncGenerator
from contextlib import aclosing

from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = ["LoopAgent"]


class LoopAgent(BaseAgent):
    """Repeats its sub-agents.

    The loop stops after ``max_iterations`` rounds, or when a sub-agent's event sets
    ``actions.escalate`` (that sub-agent finishes its run first).

    Attributes:
        max_iterations: Upper bound of rounds; ``None`` loops until an escalation.
    """

    max_iterations: int | None = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        rounds = itertools.count() if self.max_iterations is None else range(self.max_iterations)
        for _ in rounds:
            for sub_agent in self.sub_agents:
                escalated = False
                async with aclosing(sub_agent.run_async(ctx)) as events:
                    async for event in events:
                        escalated = escalated or bool(event.actions.escalate)
                        yield event
                if escalated or ctx.end_invocation:
                    return
