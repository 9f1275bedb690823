"""Agents the HTTP and CLI tests serve (imported by the server subprocess as module:attr)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from pathlib import Path

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


async def _slow(ctx: InvocationContext, author: str, steps: int) -> AsyncGenerator[Event, None]:
    for i in range(1, steps + 1):
        await asyncio.sleep(0.2)
        yield _event(ctx, author, f"step {i}", actions=EventActions(state_delta={"step": i}))


async def _gated(ctx: InvocationContext, author: str, gate: Path) -> AsyncGenerator[Event, None]:
    """One event, then wait (at most a minute, not to hang a broken test) for ``gate``."""
    yield _event(ctx, author, "holding", actions=EventActions(state_delta={"step": 1}))
    for _ in range(1200):
        if await asyncio.to_thread(gate.exists):
            break
        await asyncio.sleep(0.05)
    else:
        raise TimeoutError(f"gate {gate} was never opened")
    yield _event(ctx, author, "released", actions=EventActions(state_delta={"step": 2}))


class EchoAgent(BaseAgent):
    """Behaves by the first word of the message.

    - ``slow N``: N events, 0.2 s apart, each committing ``step = i``;
    - ``gate PATH``: one event, then holds the turn until the file PATH exists (a test creates
      it: a turn as long as the test needs, whatever the machine's speed), then one more;
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
        if word in ("slow", "gate"):
            steps = _slow(ctx, self.name, int(rest or "3")) if word == "slow" else None
            async for event in steps or _gated(ctx, self.name, Path(rest)):
                yield event
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
