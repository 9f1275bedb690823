"""The gate: token before the body is read, body size capped, docs behind the token."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from adk_runtime.server._gate import Gate
from tests.server.test_http import APP, AUTH, base_url, message  # noqa: F401 (fixture)

pytestmark = pytest.mark.sqlite


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/openapi.json", "/list-apps", "/nowhere"])
async def test_docs_and_every_route_need_the_token(base_url: str, path: str) -> None:  # noqa: F811
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        assert (await client.get(path)).status_code == 401
        assert (await client.get("/health")).status_code == 200
        with_token = await client.get(path, headers=AUTH)
        assert with_token.status_code != 401


async def test_a_body_over_the_limit_gets_413(base_url: str) -> None:  # noqa: F811
    big = {"appName": APP, "userId": "u", "sessionId": "s", "newMessage": message("x" * (33 << 20))}
    async with httpx.AsyncClient(base_url=base_url, headers=AUTH, timeout=60) as client:
        response = await client.post("/run", json=big)
    assert response.status_code == 413
    assert "max-body-bytes" in response.json()["detail"]


class _Recorder:
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks
        self.reads = 0
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        self.reads += 1
        body = self.chunks.pop(0) if self.chunks else b""
        return {"type": "http.request", "body": body, "more_body": bool(self.chunks)}

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)

    @property
    def status(self) -> int:
        return int(self.sent[0]["status"])


async def _reading_app(scope: Any, receive: Any, send: Any) -> None:
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


def _scope(headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {"type": "http", "path": "/run", "method": "POST", "headers": headers}


async def test_a_request_without_the_token_is_refused_before_its_body_is_read() -> None:
    gate = Gate(_reading_app, token="secret", max_body_bytes=1 << 30)
    recorder = _Recorder([b"x" * 1_000_000] * 50)
    await gate(_scope([(b"content-length", b"50000000")]), recorder.receive, recorder.send)
    assert recorder.status == 401
    assert recorder.reads == 0


async def test_a_streamed_body_is_cut_off_at_the_limit() -> None:
    gate = Gate(_reading_app, token=None, max_body_bytes=10_000)
    recorder = _Recorder([b"x" * 4_000] * 10)  # no content-length: chunked
    await gate(_scope([]), recorder.receive, recorder.send)
    assert recorder.status == 413
    assert recorder.reads == 3


async def test_a_body_within_the_limit_goes_through() -> None:
    gate = Gate(_reading_app, token="secret", max_body_bytes=10_000)
    recorder = _Recorder([b"x" * 4_000, b"y" * 4_000])
    headers = [(b"authorization", b"Bearer secret"), (b"content-length", b"8000")]
    await gate(_scope(headers), recorder.receive, recorder.send)
    assert recorder.status == 200


@pytest.mark.parametrize(
    ("host", "status"),
    [
        ("rebound.attacker.example", 400),  # DNS rebinding: the page's own name, resolving here
        ("rebound.attacker.example:8000", 400),
        ("localhost", 200),
        ("127.0.0.1:1234", 200),
        ("[::1]:8000", 200),
    ],
)
async def test_a_loopback_server_answers_only_requests_naming_a_loopback_host(
    base_url: str,  # noqa: F811
    host: str,
    status: int,
) -> None:
    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        health = await client.get("/health", headers={"Host": host})
        listed = await client.get("/list-apps", headers={**AUTH, "Host": host})
    assert health.status_code == status
    assert listed.status_code == status  # refused before the token or the route


def test_allowed_hosts_replace_the_loopback_default_and_any_host_elsewhere() -> None:
    from adk_runtime.cli.serve import _allowed_hosts

    assert _allowed_hosts("127.0.0.1", ()) == ("localhost", "127.0.0.1", "[::1]")
    assert _allowed_hosts("::1", ()) == ("localhost", "127.0.0.1", "[::1]")
    assert _allowed_hosts("127.0.0.2", ()) == ("localhost", "127.0.0.1", "[::1]", "127.0.0.2")
    assert _allowed_hosts("0.0.0.0", ()) == ()  # any: a container's or a proxy's names vary
    assert _allowed_hosts("127.0.0.1", ("api.example.com",)) == ("api.example.com",)


def test_create_app_refuses_a_host_not_listed() -> None:
    from fastapi.testclient import TestClient

    from adk_runtime.server import create_app
    from adk_runtime.sessions import InMemorySessionService
    from tests.server.agent import root_agent

    app = create_app(
        agent=root_agent,
        session_service=InMemorySessionService(),
        allowed_hosts=["api.example.com", "*.internal.example"],
    )
    with TestClient(app) as client:
        assert client.get("/health", headers={"Host": "api.example.com"}).status_code == 200
        assert client.get("/health", headers={"Host": "a.internal.example"}).status_code == 200
        refused = client.get("/list-apps", headers={"Host": "evil.example"})
        assert refused.status_code == 400
        assert refused.text == "Invalid host header"
