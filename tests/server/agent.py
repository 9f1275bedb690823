"""Agents the HTTP and CLI tests serve (imported by the server subprocess as module:attr)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext, StreamingMode
from adk_runtime.events import Event, EventActions


def _event(ctx: InvocationContext, author: str, text: str, **kwargs: object) -> Event:
    return Event(
        invocation_id=ctx.invocation_id,
        author=author,
        content=types.Content(role="model", parts=[types.Part(text=text)]),
        **kwargs,  # type: ignore[arg-type]
    )


class EchoAgent(BaseAgent):
    """Behaves by the first word of the message.

    - ``slow N``: N events, 0.2 s apart, each committing ``step = i``;
    - ``stream``: three partial chunks (in SSE mode) then the final text;
    - ``fail``: one event, then raises;
    - ``artifact``: saves two versions of ``report.txt``;
    - anything else: echoes it and counts turns in session state.
    """

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = ""
        if ctx.user_content and ctx.user_content.parts:
            text = ctx.user_content.parts[0].text or ""
        word, _, rest = text.partition(" ")
        if word == "slow":
            for i in range(1, int(rest or "3") + 1):
                await asyncio.sleep(0.2)
                yield _event(
                    ctx, self.name, f"step {i}", actions=EventActions(state_delta={"step": i})
                )
        elif word == "stream":
            chunks = ["Hel", "lo, ", "world"]
            if ctx.run_config.streaming_mode == StreamingMode.SSE:
                for chunk in chunks:
                    yield _event(ctx, self.name, chunk, partial=True)
            yield _event(ctx, self.name, "".join(chunks))
        elif word == "fail":
            yield _event(ctx, self.name, "about to fail")
            raise RuntimeError("the agent broke")
        elif word == "artifact":
            assert ctx.artifact_service is not None
            versions = []
            for body in (b"first", b"second"):
                versions.append(
                    await ctx.artifact_service.save_artifact(
                        app_name=ctx.app_name,
                        user_id=ctx.user_id,
                        session_id=ctx.session.id,
                        filename="report.txt",
                        artifact=types.Part.from_bytes(data=body, mime_type="text/plain"),
                    )
                )
            yield _event(
                ctx,
                self.name,
                "saved",
                actions=EventActions(artifact_delta={"report.txt": versions[-1]}),
            )
        else:
            turns = int(ctx.session.state.get("turns", 0)) + 1
            yield _event(
                ctx, self.name, f"echo: {text}", actions=EventActions(state_delta={"turns": turns})
            )


root_agent = EchoAgent(name="echo_app")
not_an_agent = 42
