"""SequentialAgent: run the sub-agents one after another."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import ClassVar

from adk_runtime.agents import _resume
from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = ["SequentialAgent"]


class SequentialAgent(BaseAgent):
    """Runs each sub-agent in order, in the same invocation (they share ``temp:`` state).

    Its progress is in the log: after each sub-agent but the last, a content-less event with
    ``agent_state={"next": i}``; at the end, one with ``end_of_agent``. A resumed invocation
    (:mod:`adk_runtime.agents._resume`) continues with the sub-agent it was running.
    """

    resumes_itself: ClassVar[bool] = True

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        resumed = _resume.checkpoint_of(self, ctx)
        if resumed is not None and resumed.ended:
            return
        start = int(resumed.state.get("next", 0)) if resumed is not None else 0
        sub_ctx = _resume.after(ctx, resumed)
        for index in range(start, len(self.sub_agents)):
            async with aclosing(self.sub_agents[index].run_async(sub_ctx)) as events:
                async for event in events:
                    yield event
            if ctx.end_invocation or sub_ctx.end_invocation:
                return
            if index + 1 < len(self.sub_agents):
                yield _resume.checkpoint(self, ctx, {"next": index + 1})
        yield _resume.checkpoint(self, ctx)
