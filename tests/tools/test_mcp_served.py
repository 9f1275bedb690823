"""adk-runtime serve closes the agent's MCP toolsets on shutdown: the MCP server process ends."""

from __future__ import annotations

import os
import time
from pathlib import Path

import httpx

from tests.serving import cli_env, running_server


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_serve_shutdown_stops_the_mcp_server_process(tmp_path: Path) -> None:
    marker = tmp_path / "closed"
    with running_server(
        "--agent", "tests.tools.mcp_agent:root_agent", "--session-url", "memory://",
        "--log-level", "warning", env=cli_env(MCP_CLOSED_MARKER=str(marker)),
    ) as base:  # fmt: skip
        httpx.post(f"{base}/apps/mcp_app/users/u/sessions/s").raise_for_status()
        message = {"role": "user", "parts": [{"text": "pid?"}]}
        body = {"userId": "u", "sessionId": "s", "newMessage": message}
        events = httpx.post(f"{base}/run", json=body, timeout=60).json()
        response = events[1]["content"]["parts"][0]["functionResponse"]["response"]
        pid = int(response["content"][0]["text"])
        assert _alive(pid)
        assert not marker.exists()
    assert marker.read_text() == "closed"  # the server's shutdown closed the toolset
    deadline = time.monotonic() + 10  # the MCP server is the served process's child
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)
