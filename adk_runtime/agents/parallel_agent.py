"""ParallelAgent: run the sub-agents concurrently, each on its own branch."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Sequence
from contextlib import aclosing
from typing import ClassVar

from adk_runtime.agents import _resume
from adk_runtime.agents.parallel_agent_config import ParallelAgentConfig
from adk_runtime.core.base_agent import BaseAgent, BaseAgentState
from adk_runtime.core.base_agent_config import BaseAgentConfig
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event

__all__ = ["ParallelAgent"]


class ParallelAgent(BaseAgent):
    """Runs every sub-agent at the same time, each on the branch ``<this>.<sub-agent>``.

    A sub-agent sees only its own branch's events (and the shared history before the
    fork). Their events interleave in the session, but each is committed on its own, in the
    order yielded, and a sub-agent resumes only after its event was committed. An escalation
    by one of its sub-agents stops the other branches.

    When the context records checkpoints (see :mod:`adk_runtime.agents._resume`), its
    progress is in the log as in google-adk: a content-less ``agent_state`` event (an empty
    state) when it starts, and ``end_of_agent`` once every branch is done (in google-adk's
    resumable mode: once every sub-agent recorded its end, or one escalated). A resumed
    invocation runs only the branches that had not ended.
    """

    config_type: ClassVar[type[BaseAgentConfig]] = ParallelAgentConfig
    resumes_itself: ClassVar[bool] = True
    _resumed_by_inner_answers: ClassVar[bool] = True

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        to_run, resumed = _resume.workflow_start(self, ctx)
        if not to_run:
            return
        if resumed is None and ctx.records_checkpoints:
            yield _resume.checkpoint(self, ctx, BaseAgentState())
        sub_ctx = _resume.after(ctx, resumed)
        runs = []
        for sub in self.sub_agents:
            branch_ctx = self._branch_context(sub_ctx, sub)
            if not _resume.ended(sub, branch_ctx):  # a resumed branch that had ended stays so
                runs.append(sub.run_async(branch_ctx))
        names = {sub.name for sub in self.sub_agents}
        escalated = paused = False
        async with aclosing(merge(runs, names)) as events:
            async for event in events:
                yield event
                escalated = escalated or _escalates(event, names)
                paused = paused or ctx.should_pause_invocation(event)
        if paused or ctx.end_invocation or not ctx.records_checkpoints:
            return
        if escalated or not ctx.is_resumable or self._all_ended(ctx):
            yield _resume.checkpoint(self, ctx, None)

    def _all_ended(self, ctx: InvocationContext) -> bool:
        """google-adk's rule in its resumable mode: every sub-agent recorded its end."""
        return all(ctx.end_of_agents.get(sub.name) for sub in self.sub_agents)

    def _branch_context(self, ctx: InvocationContext, sub_agent: BaseAgent) -> InvocationContext:
        suffix = f"{self.name}.{sub_agent.name}"
        branch = f"{ctx.branch}.{suffix}" if ctx.branch else suffix
        return ctx.model_copy(update={"branch": branch})


def _escalates(event: Event, sub_agent_names: set[str]) -> bool:
    """An escalation by a direct sub-agent (a deeper one ends only its own workflow)."""
    return bool(event.actions.escalate) and event.author in sub_agent_names


class _Done:
    pass


async def merge(
    runs: Sequence[AsyncGenerator[Event, None]], sub_agent_names: set[str] | None = None
) -> AsyncGenerator[Event, None]:
    """Yield the events of concurrent runs as they come.

    Each run waits until its event was consumed (committed by the Runner) before it continues.

    The first failure of a run stops the others and is raised. An escalation by one of
    ``sub_agent_names`` stops the others once it is consumed.
    """
    names = sub_agent_names or set()
    queue: asyncio.Queue[tuple[Event | BaseException | _Done, asyncio.Event | None]] = (
        asyncio.Queue()
    )

    async def pump(run: AsyncGenerator[Event, None]) -> None:
        try:
            async with aclosing(run) as events:
                async for event in events:
                    resume = asyncio.Event()
                    queue.put_nowait((event, resume))
                    await resume.wait()
        except Exception as exc:
            queue.put_nowait((exc, None))
        finally:
            queue.put_nowait((_Done(), None))

    tasks = [asyncio.create_task(pump(run)) for run in runs]
    try:
        running = len(tasks)
        while running:
            item, resume = await queue.get()
            if isinstance(item, _Done):
                running -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item
                if _escalates(item, names):
                    return
                assert resume is not None
                resume.set()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


# google-adk's names for its merge (one for Python 3.11+, one for older): ours serves both.
_merge_agent_run = merge
_merge_agent_run_pre_3_11 = merge
