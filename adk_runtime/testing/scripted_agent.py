"""ScriptedAgent: an agent that yields a given list of events, for tests and benchmarks."""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from google.genai import types
from pydantic import Field

from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event, EventActions

__all__ = ["ScriptStep", "ScriptedAgent", "text_event"]

ScriptStep: TypeAlias = (
    Event | Callable[[InvocationContext], Event | Awaitable[Event | None] | None]
)
"""A step: an event to yield (copied, with a fresh id), or a function of the context that
returns the event to yield (or None to yield nothing). A function runs when the agent resumes
after the previous yield, so it sees what the Runner committed; if it raises, the run fails
there."""


def text_event(
    text: str,
    *,
    state_delta: dict[str, Any] | None = None,
    partial: bool | None = None,
    role: str = "model",
) -> Event:
    """Build an event with a text part and an optional state delta."""
    return Event(
        content=types.Content(role=role, parts=[types.Part(text=text)]),
        actions=EventActions(state_delta=dict(state_delta or {})),
        partial=partial,
    )


class ScriptedAgent(BaseAgent):
    """Yields its script, step by step; every yielded event gets this invocation's id.

    Attributes:
        script: The steps (see :data:`ScriptStep`).
        repeat: Yield the script this many times per run (for benchmarks).
    """

    script: Sequence[ScriptStep] = Field(default_factory=list)
    repeat: int = 1

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for _ in range(self.repeat):
            for step in self.script:
                event = await self._materialize(step, ctx)
                if event is None:
                    continue
                event.invocation_id = ctx.invocation_id
                event.author = event.author or self.name
                event.branch = ctx.branch
                yield event

    @staticmethod
    async def _materialize(step: ScriptStep, ctx: InvocationContext) -> Event | None:
        if isinstance(step, Event):
            return step.model_copy(update={"id": Event.new_id()}, deep=True)
        result = step(ctx)
        if inspect.isawaitable(result):
            return await result
        return result
