"""Fake Anthropic Messages and OpenAI chat-completions and responses servers (loopback)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.loopback_server import LoopbackServer

LITELLM_WARNINGS = [
    pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning"),
    pytest.mark.filterwarnings("ignore:Accessing the 'model_:DeprecationWarning"),
]
"""Warnings LiteLLM's own models raise (its TypedDicts, an attribute its streaming reads)."""


class FakeApi(LoopbackServer):
    """Answers queued replies in order, recording every request.

    A reply is ``(status, body)`` for JSON, or ``("sse", events)`` to stream: events are
    ``(event_name, data)`` pairs (Anthropic's form) or bare data dicts (OpenAI's form,
    followed by ``[DONE]``).
    """

    def __init__(self) -> None:
        self.replies: list[tuple[int | str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        self.clients: list[Any] = []  # clients to close before the server stops
        app = Starlette(
            routes=[
                Route("/v1/messages", self._handle, methods=["POST"]),
                Route("/v1/chat/completions", self._handle, methods=["POST"]),
                Route("/v1/responses", self._handle, methods=["POST"]),
                Route("/chat/completions", self._handle, methods=["POST"]),
                Route("/v1/projects/{rest:path}", self._handle, methods=["POST"]),
            ]
        )
        super().__init__(app, "fake API")

    async def stop(self) -> None:
        for client in self.clients:
            await client.close()
        await super().stop()

    async def _handle(self, request: Request) -> Response:
        self.requests.append(json.loads(await request.body()))
        self.paths.append(request.url.path)
        self.headers.append(dict(request.headers))
        if not self.replies:
            return JSONResponse({"error": {"type": "test", "message": "no reply queued"}}, 500)
        status, body = self.replies.pop(0)
        if status != "sse":
            return JSONResponse(body, status_code=int(status))
        return StreamingResponse(_sse(body), media_type="text/event-stream")


async def _sse(events: list[Any]) -> AsyncIterator[bytes]:
    openai_style = False
    for event in events:
        if isinstance(event, tuple):
            name, data = event
            yield f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
        else:
            openai_style = True
            yield f"data: {json.dumps(event)}\n\n".encode()
    if openai_style:
        yield b"data: [DONE]\n\n"


@asynccontextmanager
async def running() -> AsyncIterator[FakeApi]:
    server = FakeApi()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
