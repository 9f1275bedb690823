"""A small fake of the Gemini HTTP API on 127.0.0.1, for the real google-genai client."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route


def text_body(text: str) -> dict[str, Any]:
    return parts_body([{"text": text}])


def parts_body(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
        "modelVersion": "gemini-fake",
    }


def error_body(code: int, status: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "status": status, "message": message}}


class FakeGemini:
    """Answers queued replies in order: ``(status, body)`` or ``("sse", [bodies])``."""

    def __init__(self) -> None:
        self.replies: list[tuple[int | str, Any]] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.clients: list[Any] = []  # models to close before the server stops
        app = Starlette(
            routes=[Route("/{version}/models/{action:path}", self._handle, methods=["POST"])]
        )
        config = uvicorn.Config(
            app, host="127.0.0.1", port=0, log_level="warning", lifespan="off", ws="none"
        )
        self._server = uvicorn.Server(config)
        self._task: asyncio.Task[None] | None = None

    @property
    def base_url(self) -> str:
        port = self._server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    async def start(self) -> None:
        self._task = asyncio.create_task(self._server.serve())
        for _ in range(500):  # uvicorn has no "started" event to wait on
            if self._server.started:
                return
            await asyncio.sleep(0.01)
        raise RuntimeError("the fake Gemini server did not start")

    async def stop(self) -> None:
        self._server.should_exit = True
        if self._task is not None:
            await self._task

    async def _handle(self, request: Request) -> Response:
        body = json.loads(await request.body())
        self.requests.append((request.url.path, body))
        if not self.replies:
            return JSONResponse(error_body(500, "INTERNAL", "fake server: no reply queued"), 500)
        kind, payload = self.replies.pop(0)
        if kind == "sse":
            return StreamingResponse(_sse(payload), media_type="text/event-stream")
        assert isinstance(kind, int)
        return JSONResponse(payload, status_code=kind)


async def _sse(bodies: list[dict[str, Any]]) -> AsyncIterator[bytes]:
    for body in bodies:
        yield f"data: {json.dumps(body)}\r\n\r\n".encode()
        await asyncio.sleep(0)


@contextlib.asynccontextmanager
async def serving(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGemini]:
    """A started fake server, with google-genai's API key set; its clients closed after."""
    monkeypatch.setenv("GOOGLE_API_KEY", "test-key")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    monkeypatch.delenv("GOOGLE_GENAI_USE_VERTEXAI", raising=False)
    server = FakeGemini()
    await server.start()
    try:
        yield server
    finally:
        for model in server.clients:
            await model.aclose()
        await server.stop()
