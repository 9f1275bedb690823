"""``make demo``: a short scripted conversation with a note-taking agent.

The agent needs no model and no network: it remembers facts in ``user:`` state and counts
turns in session state, so the output shows state scopes and commits at work.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext
from adk_runtime.events import Event, EventActions
from adk_runtime.runners import InMemoryRunner

APP_NAME = "notes_demo"
SCRIPT = ["remember the meeting is at 3pm", "remember to buy milk", "what do you remember?"]


class NotesAgent(BaseAgent):
    """Remembers ``remember …`` facts in ``user:notes`` and recites them when asked."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = ""
        if ctx.user_content and ctx.user_content.parts:
            text = ctx.user_content.parts[0].text or ""
        notes = list(ctx.session.state.get("user:notes", []))
        delta: dict[str, object] = {"turns": ctx.session.state.get("turns", 0) + 1}
        if text.lower().startswith("remember "):
            notes.append(text[len("remember ") :])
            delta["user:notes"] = notes
            reply = f"Noted. I now remember {len(notes)} thing(s)."
        elif notes:
            reply = "You asked me to remember: " + "; ".join(notes) + "."
        else:
            reply = "I don't remember anything yet. Say 'remember …'."
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.Content(role="model", parts=[types.Part(text=reply)]),
            actions=EventActions(state_delta=delta),
        )


async def main() -> None:
    """Run the scripted conversation and print each turn and the committed state."""
    runner = InMemoryRunner(NotesAgent(name="notes"), app_name=APP_NAME)
    session = await runner.session_service.create_session(app_name=APP_NAME, user_id="demo")
    for line in SCRIPT:
        print(f"user  > {line}")
        message = types.Content(role="user", parts=[types.Part(text=line)])
        async for event in runner.run_async(
            user_id="demo", session_id=session.id, new_message=message
        ):
            if event.content and event.content.parts:
                print(f"agent > {event.content.parts[0].text}")
    stored = await runner.session_service.get_session(
        app_name=APP_NAME, user_id="demo", session_id=session.id
    )
    assert stored is not None
    print(f"\nsession {stored.id}: revision {stored.revision}, {len(stored.events)} events")
    print(f"state: {stored.state}")


if __name__ == "__main__":
    asyncio.run(main())
