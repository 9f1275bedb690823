"""A small fake of the Gemini HTTP API on 127.0.0.1, for the real google-genai client."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import hashlib
import itertools
import json
import math
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from tests.llm.fake_interactions import FakeInteractions
from tests.loopback_server import LoopbackServer


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


EMBEDDING_DIMENSIONS = 64


def word_vector(text: str) -> list[float]:
    """The fake's embedding of ``text``: its words hashed into a unit vector (bag of words).

    Texts sharing words are close, unrelated texts nearly orthogonal: enough for a vector
    index to find the right passage, and the same on every run.
    """
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for word in re.findall(r"[a-z0-9]+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        vector[int.from_bytes(digest[:4], "big") % EMBEDDING_DIMENSIONS] += 1.0
    norm = math.sqrt(sum(value * value for value in vector)) or 1.0
    return [value / norm for value in vector]


def _embedding_texts(body: dict[str, Any]) -> list[str]:
    contents = [request["content"] for request in body.get("requests", [body])]
    return [" ".join(part.get("text", "") for part in c.get("parts", [])) for c in contents]


class FakeGemini(LoopbackServer):
    """Answers queued replies in order: ``(status, body)`` or ``("sse", [bodies])``.

    Embedding requests (``:embedContent``, ``:batchEmbedContents``) are answered at once with
    ``word_vector`` of each text, without a queued reply (and recorded in ``requests``).

    It also keeps cached content as Gemini does (``cachedContents`` create, get, delete;
    every such call recorded in ``cache_calls``): a generate request naming a cache it does
    not hold is refused with 403, and one that names a cache while also sending a system
    instruction, tools or a tool config with 400, as the real API does. ``cache_failures``
    queues error replies for the next creates.

    ``interactions`` is its Interactions API (see ``tests.llm.fake_interactions``).
    """

    def __init__(self) -> None:
        self.replies: list[tuple[int | str, Any]] = []
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.api_keys: list[str | None] = []  # the x-goog-api-key header of each request
        self.clients: list[Any] = []  # models to close before the server stops
        self.caches: dict[str, dict[str, Any]] = {}
        self.cache_calls: list[tuple[str, str, dict[str, Any] | None]] = []
        self.cache_failures: list[tuple[int, dict[str, Any]]] = []
        self._cache_ids = itertools.count(1)
        self.interactions = FakeInteractions()
        app = Starlette(
            routes=[
                Route("/{version}/models/{action:path}", self._handle, methods=["POST"]),
                # Vertex AI in express mode (an API key, no project): the publisher's models
                Route(
                    "/{version}/publishers/google/models/{action:path}",
                    self._handle,
                    methods=["POST"],
                ),
                Route("/{version}/cachedContents", self._create_cache, methods=["POST"]),
                Route("/{version}/interactions", self.interactions.create, methods=["POST"]),
                Route(
                    "/{version}/interactions/{interaction_id}",
                    self.interactions.get,
                    methods=["GET"],
                ),
                Route(
                    "/{version}/cachedContents/{cache_id}",
                    self._cache,
                    methods=["GET", "DELETE"],
                ),
            ]
        )
        super().__init__(app, "fake Gemini")

    def cache_calls_of(self, method: str) -> list[tuple[str, dict[str, Any] | None]]:
        """The recorded cache calls of one HTTP method: ``(path, body)``."""
        return [(path, body) for m, path, body in self.cache_calls if m == method]

    async def _create_cache(self, request: Request) -> Response:
        body = json.loads(await request.body())
        self.cache_calls.append(("POST", request.url.path, body))
        if self.cache_failures:
            status, payload = self.cache_failures.pop(0)
            return JSONResponse(payload, status_code=status)
        name = f"cachedContents/cache-{next(self._cache_ids)}"
        now = datetime.datetime.now(datetime.timezone.utc)
        ttl = float(str(body.get("ttl", "3600s")).rstrip("s"))
        cache = {
            "name": name,
            "model": body.get("model"),
            "displayName": body.get("displayName"),
            "createTime": now.isoformat(),
            "updateTime": now.isoformat(),
            "expireTime": (now + datetime.timedelta(seconds=ttl)).isoformat(),
            "usageMetadata": {"totalTokenCount": 4096},
        }
        self.caches[name] = {**body, **cache}
        return JSONResponse(cache)

    async def _cache(self, request: Request) -> Response:
        name = f"cachedContents/{request.path_params['cache_id']}"
        self.cache_calls.append((request.method, request.url.path, None))
        if name not in self.caches:
            return JSONResponse(error_body(404, "NOT_FOUND", "no such cache"), 404)
        if request.method == "DELETE":
            del self.caches[name]
            return JSONResponse({})
        return JSONResponse(self.caches[name])

    def _refuse_cache_use(self, body: dict[str, Any]) -> Response | None:
        name = body.get("cachedContent")
        if name is None:
            return None
        if name not in self.caches:
            message = "CachedContent not found (or permission denied)"
            return JSONResponse(error_body(403, "PERMISSION_DENIED", message), 403)
        if any(key in body for key in ("systemInstruction", "tools", "toolConfig")):
            message = "CachedContent can not be used with system_instruction, tools or tool_config"
            return JSONResponse(error_body(400, "INVALID_ARGUMENT", message), 400)
        return None

    async def _handle(self, request: Request) -> Response:
        body = json.loads(await request.body())
        self.requests.append((request.url.path, body))
        self.api_keys.append(request.headers.get("x-goog-api-key"))
        action = request.path_params["action"]
        if action.endswith((":embedContent", ":batchEmbedContents")):
            embeddings = [{"values": word_vector(text)} for text in _embedding_texts(body)]
            if action.endswith(":embedContent"):
                return JSONResponse({"embedding": embeddings[0]})
            return JSONResponse({"embeddings": embeddings})
        refused = self._refuse_cache_use(body)
        if refused is not None:
            return refused
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
