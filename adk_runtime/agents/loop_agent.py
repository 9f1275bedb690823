"""LoopAgent: run the sub-agents in order, again and again, until one escalates."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import ClassVar

from adk_runtime.agents import _resume
from adk_runtime.agents._generator_tools import run_caller
from adk_runtime.agents.loop_agent_config import LoopAgentConfig
from adk_runtime.core.base_agent import BaseAgent, BaseAgentState
from adk_runtime.core.base_agent_config import BaseAgentConfig
from adk_runtime.core.invocation_context import InvocationContext
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
    ``actions.escalate`` (that sub-agent finishes its run first), or when a sub-agent pauses
    the invocation (a long-running call). An escalation inside a run a tool call made (a
    node tool's workflow) is that run's own and does not stop this loop.

    When the context records checkpoints (see :mod:`adk_runtime.agents._resume`), its
    progress is in the log as in google-adk: before each sub-agent a content-less event whose
    ``agent_state`` is a :class:`LoopAgentState` (the sub-agent and the rounds completed), at
    the end one with ``end_of_agent``. A resumed invocation continues at that round and
    sub-agent.

    Attributes:
        max_iterations: Upper bound of rounds; ``None`` loops until an escalation.
    """

    config_type: ClassVar[type[BaseAgentConfig]] = LoopAgentConfig
    resumes_itself: ClassVar[bool] = True
    _resumed_by_inner_answers: ClassVar[bool] = True

    max_iterations: int | None = None

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        to_run, resumed = _resume.workflow_start(self, ctx)
        if not to_run:
            return  # no sub-agents (nothing could ever escalate), or its end is committed
        rounds, start = self._start(resumed)
        sub_ctx = _resume.after(ctx, resumed)
        continuing = resumed is not None  # its checkpoint for that sub-agent is committed
        escalated = False
        while not escalated and (self.max_iterations is None or rounds < self.max_iterations):
            for sub_agent in self.sub_agents[start:]:
                if ctx.records_checkpoints and not continuing:
                    state = LoopAgentState(current_sub_agent=sub_agent.name, times_looped=rounds)
                    yield _resume.checkpoint(self, ctx, state)
                continuing = False
                paused = False
                async with aclosing(sub_agent.run_async(sub_ctx)) as events:
                    async for event in events:
                        yield event
                        escalated = escalated or _escalates(event)
                        paused = paused or ctx.should_pause_invocation(event)
                if paused or ctx.end_invocation or sub_ctx.end_invocation:
                    return
                if escalated:
                    break
            start, rounds = 0, rounds + 1
            ctx.reset_sub_agent_states(self.name)  # each round starts its sub-agents afresh
        if ctx.records_checkpoints:
            yield _resume.checkpoint(self, ctx, None)

    def _start(self, resumed: _resume.Checkpoint | None) -> tuple[int, int]:
        """The round and the sub-agent a run starts at (its checkpoint's, when resumed)."""
        if resumed is None:
            return 0, 0
        rounds = int(resumed.state.get("times_looped", resumed.state.get("iteration", 0)))
        return rounds, _resume.sub_agent_index(self, resumed.state)


def _escalates(event: Event) -> bool:
    """Whether ``event`` asks the loop to stop (not one of a tool call's own run)."""
    return bool(event.actions.escalate) and run_caller(event) is None
