"""Workflow graphs: runtime cost per node run, ours vs google-adk 2.13, in the same run.

Each user message runs a five-node graph, ``(START, parse, (left, right), join, finish)``:
plain functions (one writes state), a fan-out and a join. We count node runs per second
over SESSIONS sessions of TURNS turns each, on our ``Runner(node=...)`` and on google-adk's
(bench extra), on each one's in-memory store and on SQLite. The functions do no work, so the
figures are the runtimes' own cost: scheduling, events, commits. Noisy machine: compare
ratios within one run.
"""

from __future__ import annotations

import functools
import importlib.util
import logging
import tempfile
from pathlib import Path
from typing import Any

from google.genai import types

from adk_runtime.runners import Runner
from adk_runtime.sessions import InMemorySessionService
from bench.common import Report, best_turn_rate, google_adk_available

SESSIONS = 5
TURNS = 20
ROUNDS = 3
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


_rate = functools.partial(
    best_turn_rate,
    message=_message,
    sessions=SESSIONS,
    turns=TURNS,
    rounds=ROUNDS,
    units_per_turn=NODES,
    app=APP,
)


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
    tmp = Path(tempfile.mkdtemp(prefix="bench-workflow-"))
    counter = iter(range(1_000))

    async def ours_memory() -> Any:
        return InMemorySessionService()

    async def adk_memory() -> Any:
        from google.adk.sessions import InMemorySessionService as AdkInMemory

        return AdkInMemory()

    async def ours_sqlite() -> Any:
        from adk_runtime.sessions import session_service_from_url

        return session_service_from_url(f"sqlite+aiosqlite:///{tmp}/ours{next(counter)}.db")

    async def adk_sqlite() -> Any:
        from google.adk.sessions import DatabaseSessionService

        return DatabaseSessionService(f"sqlite+aiosqlite:///{tmp}/adk{next(counter)}.db")

    backends = [("memory", ours_memory, adk_memory)]
    if importlib.util.find_spec("aiosqlite") is not None:
        backends.append(("sqlite", ours_sqlite, adk_sqlite))
    for name, ours, adk in backends:
        rate = await _rate(ours, _ours_runner)
        report.add("workflow", name, "node runs/s", rate, "runs/s")
        if not google_adk_available():
            print("  google-adk is not installed (make bench installs the bench extra); skipped")
            continue
        rate = await _rate(adk, _adk_runner)
        report.add("workflow", name, "node runs/s", rate, "runs/s", impl="google-adk")
        report.ratio(
            "workflow", name, "node runs/s", "adk_runtime", "google-adk", higher_is_better=True
        )
