"""A google-adk ``LlmAgent`` on a scripted model, with a tool: what the google-adk tests run.

The model (a google-adk ``BaseLlm``) answers by the last user text:

- ``remember X``: calls the ``remember`` tool with ``X``, then (after its response) says
  ``stored X``;
- anything else: ``echo: <text> (history N)``, N being how many contents it was sent.

``remember`` writes every state scope (``user:last``, ``app:count``, a session key ``notes``)
and saves ``note.txt``; it also reads the ``temp:`` key the agent's before-callback set, to
prove ``temp:`` is visible within the invocation. ``ADK_TEST_MODEL_DELAY`` (seconds) makes the
model slow; ``ADK_TEST_BARRIER`` (``mine,theirs`` file paths) makes the first model call of
the process wait for another process's first call (the race tests).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.agents.callback_context import CallbackContext
from google.adk.models import BaseLlm, LlmRequest, LlmResponse
from google.adk.tools import ToolContext
from google.genai import types

_BARRIER_PASSED = False


async def _barrier() -> None:
    global _BARRIER_PASSED
    spec = os.environ.get("ADK_TEST_BARRIER")
    if not spec or _BARRIER_PASSED:
        return
    _BARRIER_PASSED = True
    mine, theirs = spec.split(",")
    await asyncio.to_thread(Path(mine).touch)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if await asyncio.to_thread(Path(theirs).exists):
            return
        await asyncio.sleep(0.02)


def _last_text(request: LlmRequest) -> tuple[str, Any]:
    """The last user text and the last function response (if the last content is one)."""
    for content in reversed(request.contents):
        for part in content.parts or []:
            if part.function_response is not None:
                return "", part.function_response.response
            if content.role == "user" and part.text:
                return part.text, None
    return "", None


class ScriptedGoogleModel(BaseLlm):
    """A deterministic google-adk model (no network)."""

    model: str = "scripted"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        await _barrier()
        delay = float(os.environ.get("ADK_TEST_MODEL_DELAY", "0"))
        if delay:
            await asyncio.sleep(delay)
        text, response = _last_text(llm_request)
        if response is not None:
            reply = f"stored {response.get('stored')}"
            yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=reply)]))
            return
        if text.startswith("remember "):
            call = types.FunctionCall(name="remember", args={"value": text[len("remember ") :]})
            yield LlmResponse(
                content=types.Content(role="model", parts=[types.Part(function_call=call)])
            )
            return
        reply = f"echo: {text} (history {len(llm_request.contents)})"
        if stream:
            for chunk in (reply[:5], reply[5:]):
                yield LlmResponse(
                    content=types.Content(role="model", parts=[types.Part(text=chunk)]),
                    partial=True,
                )
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=reply)]))


async def remember(value: str, tool_context: ToolContext) -> dict[str, Any]:
    """Remember a value in every state scope and as an artifact."""
    tool_context.state["user:last"] = value
    tool_context.state["app:count"] = int(tool_context.state.get("app:count", 0)) + 1
    tool_context.state["notes"] = [*tool_context.state.get("notes", []), value]
    version = await tool_context.save_artifact(
        "note.txt", types.Part.from_bytes(data=value.encode(), mime_type="text/plain")
    )
    return {"stored": value, "temp": tool_context.state.get("temp:greeting"), "version": version}


def _before_agent(callback_context: CallbackContext) -> None:
    callback_context.state["temp:greeting"] = "hello"


root_agent = LlmAgent(
    name="durable_app",
    model=ScriptedGoogleModel(),
    instruction="Remember what you are told.",
    tools=[remember],
    before_agent_callback=_before_agent,
)
