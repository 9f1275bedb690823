"""LoopAgent: run the sub-agents in order, again and again, until one escalates."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import ClassVar

from adk_runtime.agents import _resume
from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = ["LoopAgent"]


class LoopAgent(BaseAgent):
    """Repeats its sub-agents.

    The loop stops after ``max_iterations`` rounds, or when a sub-agent's event sets
    ``actions.escalate`` (that sub-agent finishes its run first).

    Its progress is in the log: after each sub-agent, a content-less event with
    ``agent_state={"iteration": r, "next": i}`` (the position to run next); at the end, one
    with ``end_of_agent``. A resumed invocation continues at that iteration and sub-agent.

    Attributes:
        max_iterations: Upper bound of rounds; ``None`` loops until an escalation.
    """

    resumes_itself: ClassVar[bool] = True

    max_iterations: int | None = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        resumed = _resume.checkpoint_of(self, ctx)
        if resumed is not None and resumed.ended:
            return
        state = resumed.state if resumed is not None else {}
        position = (int(state.get("iteration", 0)), int(state.get("next", 0)))
        sub_ctx = _resume.after(ctx, resumed)
        while self.max_iterations is None or position[0] < self.max_iterations:
            iteration, index = position
            escalated = False
            async with aclosing(self.sub_agents[index].run_async(sub_ctx)) as events:
                async for event in events:
                    escalated = escalated or bool(event.actions.escalate)
                    yield event
            if ctx.end_invocation or sub_ctx.end_invocation:
                return
            if escalated:
                break
            position = self._after(iteration, index)
            if self.max_iterations is None or position[0] < self.max_iterations:
                yield _resume.checkpoint(self, ctx, {"iteration": position[0], "next": position[1]})
        yield _resume.checkpoint(self, ctx)

    def _after(self, iteration: int, index: int) -> tuple[int, int]:
        """The position after sub-agent ``index`` of round ``iteration``."""
        if index + 1 < len(self.sub_agents):
            return iteration, index + 1
        return iteration + 1, 0
