"""LLM agents: runtime overhead per model step with a scripted model (no network).

A tool-calling agent answers each user message with two model calls (model → tool → model):
the model asks for ``add(a, b)``, the tool writes the result to state, the model answers with
text. We count model steps per second over 5 sessions of 20 turns each (best of 3 rounds), on our
Runner + LlmAgent and on google-adk 2.13's Runner + LlmAgent (bench extra) in the same run,
each on its in-memory store and on SQLite when that backend is available. The scripted models
do no work, so the figures are the runtimes' own cost: request building, events, tool calls,
commits. Benchmarks on a shared 2-core machine are noisy; compare ratios within one run.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools import ToolContext
from bench.common import Report, adk_scripted_model, best_turn_rate, compare_rates

APP = "bench"


def add(a: int, b: int, tool_context: ToolContext) -> int:
    """Add two numbers."""
    tool_context.state["last_sum"] = a + b
    return a + b


def _reply(contents: list[types.Content]) -> types.Part:
    """Call the tool for a user message; answer in text after the tool's response."""
    last = contents[-1].parts[0] if contents and contents[-1].parts else None
    if last is not None and last.function_response is not None:
        return types.Part(text=f"The sum is {last.function_response.response}.")
    return types.Part(function_call=types.FunctionCall(name="add", args={"a": 2, "b": 3}))


def _message(i: int) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=f"add two and three, #{i}")])


_rate = functools.partial(best_turn_rate, message=_message, units_per_turn=2)


def _ours_runner(service: BaseSessionService) -> Runner:
    model = ScriptedModel(handler=lambda request: _reply(request.contents))
    agent = LlmAgent(name="calc", model=model, tools=[add], instruction="Add for {user:name?}.")
    return Runner(app_name=APP, agent=agent, session_service=service)


def _adk_runner(service: Any) -> Any:
    from google.adk.agents import LlmAgent as AdkLlmAgent
    from google.adk.runners import Runner as AdkRunner

    agent = AdkLlmAgent(
        name="calc",
        model=adk_scripted_model(_reply),
        tools=[add],
        instruction="Add for {user:name?}.",
    )
    return AdkRunner(app_name=APP, agent=agent, session_service=service)


async def run(report: Report) -> None:
    # google-adk logs a line per model call about the scripted model's missing token counts.
    logging.getLogger("google_adk").setLevel(logging.ERROR)
    await compare_rates(
        report,
        "llm",
        "tool-agent LLM steps/s",
        "steps/s",
        "llm",
        _rate,
        _ours_runner,
        _adk_runner,
    )
