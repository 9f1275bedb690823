"""The agent ``python -m bench serve`` serves: echoes each message and counts turns in state.

Deterministic and instant, so the load test measures the runtime and the store, not a model.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext
from adk_runtime.events import Event, EventActions


class EchoAgent(BaseAgent):
    """Answers ``echo: <message>`` and commits ``turns = turns + 1`` with the answer."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = ""
        if ctx.user_content and ctx.user_content.parts:
            text = ctx.user_content.parts[0].text or ""
        turns = int(ctx.session.state.get("turns", 0)) + 1
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.Content(role="model", parts=[types.Part(text=f"echo: {text}")]),
            actions=EventActions(state_delta={"turns": turns}),
        )


root_agent = EchoAgent(name="load")
