"""The agent the browser test serves: a slow stream, state, an artifact (no model)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext, StreamingMode
from adk_runtime.events import Event, EventActions

CHUNKS = ("Streamed ", "reply ", "number ")


def _event(ctx: InvocationContext, text: str, **kwargs: object) -> Event:
    return Event(
        invocation_id=ctx.invocation_id,
        author=ctx.agent.name,
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        **kwargs,  # type: ignore[arg-type]
    )


class UiAgent(BaseAgent):
    """Streams ``Streamed reply number N`` in chunks 0.4 s apart (in SSE mode), counts turns
    in ``turns``, and saves the user's text as ``note.txt``."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = ""
        if ctx.user_content and ctx.user_content.parts:
            text = ctx.user_content.parts[0].text or ""
        turns = int(ctx.session.state.get("turns", 0)) + 1
        if ctx.run_config.streaming_mode == StreamingMode.SSE:
            for chunk in CHUNKS:
                await asyncio.sleep(0.4)
                yield _event(ctx, chunk, partial=True)
        assert ctx.artifact_service is not None
        version = await ctx.artifact_service.save_artifact(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=ctx.session.id,
            filename="note.txt",
            artifact=types.Part.from_bytes(data=text.encode(), mime_type="text/plain"),
        )
        yield _event(
            ctx,
            "".join(CHUNKS) + str(turns),
            actions=EventActions(
                state_delta={"turns": turns, "last_message": text},
                artifact_delta={"note.txt": version},
            ),
        )


root_agent = UiAgent(name="ui_app")
