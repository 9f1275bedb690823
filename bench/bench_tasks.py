"""Delegated tasks (``LlmAgent.mode="task"``): runtime cost per model step, ours vs google-adk.

Each user message is one delegation: the coordinator's model calls its task sub-agent, the
task agent's model calls ``finish_task``, and the coordinator's model answers with the
result (three model steps). We count model steps per second over 5 sessions of 20
turns each, on our Runner and on google-adk 2.13's (bench extra), each on its in-memory
store and on SQLite. The scripted models do no work, so the figures are the runtimes' own
cost: scoping, request building, events, commits. Noisy machine: compare ratios within one
run.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.runners import Runner
from adk_runtime.testing import ScriptedModel
from bench.common import Report, adk_scripted_model, best_turn_rate, compare_rates

APP = "bench"


def _coordinator(contents: list[types.Content]) -> types.Part:
    """Delegate the user's message; answer once the task's result is back."""
    last = contents[-1].parts[0] if contents and contents[-1].parts else None
    if last is not None and last.function_response is not None:
        return types.Part(text=f"Done: {last.function_response.response}.")
    request = {"request": last.text if last is not None else ""}
    return types.Part(function_call=types.FunctionCall(name="worker", args=request))


def _worker(contents: list[types.Content]) -> types.Part:
    return types.Part(
        function_call=types.FunctionCall(name="finish_task", args={"result": "handled"})
    )


def _message(i: int) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=f"handle request #{i}")])


_rate = functools.partial(best_turn_rate, message=_message, units_per_turn=3)


def _ours_runner(service: Any) -> Runner:
    worker = LlmAgent(
        name="worker",
        description="Handles a request.",
        mode="task",
        model=ScriptedModel(handler=lambda request: _worker(request.contents)),
    )
    root = LlmAgent(
        name="root",
        sub_agents=[worker],
        model=ScriptedModel(handler=lambda request: _coordinator(request.contents)),
    )
    return Runner(app_name=APP, agent=root, session_service=service)


def _adk_runner(service: Any) -> Any:
    from google.adk.agents import LlmAgent as AdkLlmAgent
    from google.adk.runners import Runner as AdkRunner

    worker = AdkLlmAgent(
        name="worker",
        description="Handles a request.",
        mode="task",
        model=adk_scripted_model(_worker),
    )
    root = AdkLlmAgent(name="root", sub_agents=[worker], model=adk_scripted_model(_coordinator))
    return AdkRunner(app_name=APP, agent=root, session_service=service)


async def run(report: Report) -> None:
    logging.getLogger("google_adk").setLevel(logging.ERROR)
    await compare_rates(
        report,
        "tasks",
        "delegation model steps/s",
        "steps/s",
        "tasks",
        _rate,
        _ours_runner,
        _adk_runner,
    )
