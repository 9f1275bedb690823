"""LoopAgent: run the sub-agents in order, again and again, until one escalates."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import ClassVar

from adk_runtime.agents import _resume
from adk_runtime.agents.base_agent import BaseAgent, BaseAgentState
from adk_runtime.agents.base_agent_config import BaseAgentConfig
from adk_runtime.agents.invocation_context import InvocationContext
from adk_runtime.agents.loop_agent_config import LoopAgentConfig
from adk_runtime.events import Event

__all__ = ["LoopAgent", "LoopAgentState"]


class LoopAgentState(BaseAgentState):
    """A ``LoopAgent``'s checkpoint.

    Attributes:
        current_sub_agent: The sub-agent to run next (empty: the first).
        times_looped: The rounds completed before it.
    """

    current_sub_agent: str = ""
    times_looped: int = 0


class LoopAgent(BaseAgent):
    """Repeats its sub-agents.

    The loop stops after ``max_iterations`` rounds, or when a sub-agent's event sets
    ``actions.escalate`` (that sub-agent finishes its run first).

    Its progress is in the log: after each sub-agent, a content-less event whose
    ``agent_state`` is a :class:`LoopAgentState` (the round and the sub-agent to run next); at
    the end, one with ``end_of_agent``. A resumed invocation continues at that round and
    sub-agent.

    Attributes:
        max_iterations: Upper bound of rounds; ``None`` loops until an escalation.
    """

    config_type: ClassVar[type[BaseAgentConfig]] = LoopAgentConfig
    resumes_itself: ClassVar[bool] = True

    max_iterations: int | None = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        if not self.sub_agents:
            return  # nothing to loop over (and nothing that could ever escalate)
        resumed = _resume.checkpoint_of(self, ctx)
        if resumed is not None and resumed.ended:
            return
        position = (0, 0)
        if resumed is not None:
            rounds = resumed.state.get("times_looped", resumed.state.get("iteration", 0))
            position = (int(rounds), _resume.sub_agent_index(self, resumed.state))
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
                state = LoopAgentState(
                    current_sub_agent=self.sub_agents[position[1]].name, times_looped=position[0]
                )
                yield _resume.checkpoint(self, ctx, state.model_dump())
        yield _resume.checkpoint(self, ctx)

    def _after(self, iteration: int, index: int) -> tuple[int, int]:
        """The position after sub-agent ``index`` of round ``iteration``."""
        if index + 1 < len(self.sub_agents):
            return iteration, index + 1
        return iteration + 1, 0
