"""Workflow graphs: runtime cost per node run, ours vs google-adk 2.13, in the same run.

Each user message runs a five-node graph, ``(START, parse, (left, right), join, finish)``:
plain functions (one writes state), a fan-out and a join. We count node runs per second
over 5 sessions of 20 turns each (best of 3 rounds), on our ``Runner(node=...)`` and on google-adk's
(bench extra), on each one's in-memory store and on SQLite. The functions do no work, so the
figures are the runtimes' own cost: scheduling, events, commits. Noisy machine: compare
ratios within one run.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

from google.genai import types

from adk_runtime.runners import Runner
from bench.common import Report, best_turn_rate, compare_rates

APP = "bench"
NODES = 5


def parse(node_input: Any) -> dict[str, Any]:
    text = node_input.parts[0].text if hasattr(node_input, "parts") else str(node_input)
    return {"text": text, "length": len(text)}


def left(node_input: dict[str, Any]) -> str:
    return node_input["text"].upper()


def right(node_input: dict[str, Any]) -> int:
    return int(node_input["length"]) * 2


def finish(ctx: Any, node_input: dict[str, Any]) -> str:
    ctx.state["last"] = node_input["right"]
    return f"{node_input['left']}:{node_input['right']}"


def _edges(module: Any) -> list[Any]:
    return [(module.START, parse, (left, right), module.JoinNode(name="join"), finish)]


def _message(i: int) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=f"message {i}")])


_rate = functools.partial(best_turn_rate, message=_message, units_per_turn=NODES)


def _ours_runner(service: Any) -> Runner:
    import adk_runtime.workflow as workflow

    graph = workflow.Workflow(name="flow", edges=_edges(workflow))
    return Runner(app_name=APP, node=graph, session_service=service)


def _adk_runner(service: Any) -> Any:
    import google.adk.workflow as workflow
    from google.adk.runners import Runner as AdkRunner

    graph = workflow.Workflow(name="flow", edges=_edges(workflow))
    return AdkRunner(app_name=APP, node=graph, session_service=service)


async def run(report: Report) -> None:
    logging.getLogger("google_adk").setLevel(logging.ERROR)
    await compare_rates(
        report, "workflow", "node runs/s", "runs/s", "workflow", _rate, _ours_runner, _adk_runner
    )
