"""The front gate of the HTTP API: the bearer token and the body size, before anything else.

A pure ASGI middleware, so it runs before FastAPI reads or parses a request body: a request
without the token gets 401 without its body being read (a 50 MB body from a stranger costs
nothing), and a body over the limit gets 413 — at once when ``Content-Length`` says so, or as
soon as a streamed body passes the limit. It covers every route, including the OpenAPI docs
(``/docs``, ``/redoc``, ``/openapi.json``) and any route added later; only ``/health`` is open,
and the dev UI's static files (``/dev-ui/…``) when ``serve --dev-ui`` serves them.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

__all__ = ["DEFAULT_MAX_BODY_BYTES", "Gate"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
"""The largest request body ``adk-runtime serve`` reads unless told otherwise."""

_OPEN_PATHS = frozenset({"/health"})


class _TooLarge(Exception):
    pass


class Gate:
    """Check the bearer token and cap the body size of every HTTP request but ``/health``.

    Args:
        app: The application behind the gate.
        token: The bearer token every request must carry (None: no token needed).
        max_body_bytes: The largest body accepted (413 beyond it).
    """

    def __init__(
        self,
        app: App,
        *,
        token: str | None,
        max_body_bytes: int,
        open_prefixes: tuple[str, ...] = (),
    ) -> None:
        """Wrap ``app``; paths under ``open_prefixes`` (static files) need no token."""
        self.app = app
        self.token = token
        self.max_body_bytes = max_body_bytes
        self.open_prefixes = open_prefixes

    def _open(self, path: str) -> bool:
        return path in _OPEN_PATHS or any(
            path == prefix or path.startswith(prefix + "/") for prefix in self.open_prefixes
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI connection."""
        if scope["type"] != "http" or self._open(scope.get("path", "")):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if self.token is not None and not self._authorized(headers.get("authorization", "")):
            await _reply(
                send,
                401,
                "Missing or wrong bearer token: send 'Authorization: Bearer <token>'.",
                [(b"www-authenticate", b"Bearer")],
            )
            return
        length = headers.get("content-length", "")
        if length.isdigit() and int(length) > self.max_body_bytes:
            await _reply(send, 413, self._too_large())
            return
        await self._limited(scope, receive, send)

    def _authorized(self, header: str) -> bool:
        assert self.token is not None
        scheme, _, token = header.partition(" ")
        return scheme.lower() == "bearer" and secrets.compare_digest(
            token.strip().encode(), self.token.encode()
        )

    def _too_large(self) -> str:
        return (
            f"The request body is larger than {self.max_body_bytes:,} bytes "
            "(adk-runtime serve --max-body-bytes sets the limit)."
        )

    async def _limited(self, scope: Scope, receive: Receive, send: Send) -> None:
        seen = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body_bytes:
                    raise _TooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except _TooLarge:
            if not started:
                await _reply(send, 413, self._too_large())


async def _reply(
    send: Send, status: int, detail: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    body = json.dumps({"detail": detail}).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
        *(extra or []),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
