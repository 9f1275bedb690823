"""The Interactions API part of the fake Gemini server: stateful, as the real one is.

Each ``POST /{version}/interactions`` takes the next queued model turn (a list of output
steps), stores the interaction (its input, its steps, the interaction it continues) under a
new id and answers it whole, or as Server-Sent Events when the request streams. A request
naming a ``previous_interaction_id`` the server does not hold is refused with 404, as the
real API refuses it; a deferred one (``service_tier="deferred"``) is answered ``queued`` and
completes on its second ``GET /{version}/interactions/{id}``. A request with an
``environment`` spec (a dict) gets a new sandbox id (``environment_id``); one naming an id
keeps it.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse


def text_step(text: str) -> dict[str, Any]:
    return {"type": "model_output", "content": [{"type": "text", "text": text}]}


def call_step(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function_call", "id": call_id, "name": name, "arguments": arguments}


def _error(code: int, status: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "status": status, "message": message}}, code)


USAGE = {"total_input_tokens": 7, "total_output_tokens": 3, "total_tokens": 12}


class FakeInteractions:
    """The stored interactions and the queued model turns.

    Attributes:
        turns: The next model turns, each a list of output steps (see ``text_step``,
            ``call_step``), or ``(status, error body)`` to refuse the next create.
        created: The body of every create request, in order.
        stored: Every interaction the server holds, by id.
        polls: The ids read by ``GET``, in order.
    """

    def __init__(self) -> None:
        self.turns: list[list[dict[str, Any]] | tuple[int, dict[str, Any]]] = []
        self.created: list[dict[str, Any]] = []
        self.stored: dict[str, dict[str, Any]] = {}
        self.polls: list[str] = []
        self._ids = itertools.count(1)
        self._environments = itertools.count(1)
        self._pending: dict[str, int] = {}  # deferred interactions: reads before completing

    def chain(self, interaction_id: str) -> list[str]:
        """The ids from the first interaction of a chain to ``interaction_id``."""
        ids: list[str] = []
        current: str | None = interaction_id
        while current is not None:
            ids.insert(0, current)
            current = self.stored[current].get("previous_interaction_id")
        return ids

    async def create(self, request: Request) -> Response:
        body = json.loads(await request.body())
        self.created.append(body)
        previous = body.get("previous_interaction_id")
        if previous is not None and previous not in self.stored:
            return _error(404, "NOT_FOUND", f"Interaction {previous} not found")
        if not self.turns:
            return _error(500, "INTERNAL", "fake server: no model turn queued")
        turn = self.turns.pop(0)
        if isinstance(turn, tuple):
            return JSONResponse(turn[1], turn[0])
        interaction_id = f"interaction-{next(self._ids)}"
        calls = any(step["type"] == "function_call" for step in turn)
        environment = body.get("environment")
        if isinstance(environment, dict):  # a spec: the API makes a sandbox and names it
            environment = f"environment-{next(self._environments)}"
        interaction = {
            "id": interaction_id,
            "status": "requires_action" if calls else "completed",
            "model": body.get("model") or body.get("agent"),
            "environment_id": environment,
            "previous_interaction_id": previous,
            "input": body.get("input"),
            "steps": turn,
            "usage": USAGE,
        }
        self.stored[interaction_id] = interaction
        if body.get("service_tier") == "deferred":
            self._pending[interaction_id] = 1
            return JSONResponse({"id": interaction_id, "status": "queued"})
        if body.get("stream"):
            return StreamingResponse(_events(interaction), media_type="text/event-stream")
        return JSONResponse(interaction)

    async def get(self, request: Request) -> Response:
        interaction_id = request.path_params["interaction_id"]
        self.polls.append(interaction_id)
        if interaction_id not in self.stored:
            return _error(404, "NOT_FOUND", f"Interaction {interaction_id} not found")
        if self._pending.get(interaction_id, 0) > 0:
            self._pending[interaction_id] -= 1
            return JSONResponse({"id": interaction_id, "status": "in_progress"})
        return JSONResponse(self.stored[interaction_id])


def _step_events(index: int, step: dict[str, Any]) -> list[dict[str, Any]]:
    """A step as the API streams it: start, deltas (text and arguments in pieces), stop."""
    if step["type"] == "function_call":
        started = {**step, "arguments": {}}
        text = json.dumps(step["arguments"])
        half = len(text) // 2
        deltas = [
            {"type": "arguments_delta", "arguments": piece} for piece in (text[:half], text[half:])
        ]
    else:
        started = {"type": step["type"], "content": []}
        deltas = []
        for content in step["content"]:
            text = content["text"]
            half = len(text) // 2
            deltas += [
                {"type": "text", "text": piece} for piece in (text[:half], text[half:]) if piece
            ]
    return [
        {"event_type": "step.start", "index": index, "step": started},
        *({"event_type": "step.delta", "index": index, "delta": delta} for delta in deltas),
        {"event_type": "step.stop", "index": index},
    ]


async def _events(interaction: dict[str, Any]) -> AsyncIterator[bytes]:
    head = {
        "id": interaction["id"],
        "status": "in_progress",
        "model": interaction["model"],
        "environment_id": interaction["environment_id"],
    }
    events = [{"event_type": "interaction.created", "interaction": head}]
    for index, step in enumerate(interaction["steps"]):
        events += _step_events(index, step)
    final = {key: interaction[key] for key in ("id", "status", "model", "usage", "environment_id")}
    events.append({"event_type": "interaction.completed", "interaction": final})
    for event in events:
        yield f"event: {event['event_type']}\ndata: {json.dumps(event)}\n\n".encode()
        await asyncio.sleep(0)
