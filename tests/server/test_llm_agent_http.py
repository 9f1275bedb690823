"""The demo LlmAgent (function tools, offline model) served over HTTP, streamed with SSE."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.serving import running_server


def _sse(base: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    with httpx.stream("POST", f"{base}/run_sse", json=body, timeout=30) as response:
        assert response.status_code == 200
        return [json.loads(line[6:]) for line in response.iter_lines() if line.startswith("data: ")]


def test_llm_agent_tools_and_streaming_over_http() -> None:
    with running_server(
        "--agent", "adk_runtime.demo:root_agent", "--session-url", "memory://",
        "--log-level", "warning",
    ) as base:  # fmt: skip
        assert httpx.get(f"{base}/list-apps").json() == ["notes"]
        httpx.post(f"{base}/apps/notes/users/u/sessions/s").raise_for_status()
        message = {"role": "user", "parts": [{"text": "remember tea is hot"}]}
        body = {"userId": "u", "sessionId": "s", "newMessage": message, "streaming": True}
        events = _sse(base, body)
        committed = [e for e in events if not e.get("partial")]
        partial = [e for e in events if e.get("partial")]
        call, response, answer = committed
        assert call["content"]["parts"][0]["functionCall"]["name"] == "remember_fact"
        assert response["actions"]["stateDelta"] == {"user:notes": ["tea is hot"]}
        assert answer["content"]["parts"][0]["text"] == "Noted. I remember 1 thing(s)."
        assert "".join(p["content"]["parts"][0]["text"] for p in partial) == (
            "Noted. I remember 1 thing(s)."
        )
        stored = httpx.get(f"{base}/apps/notes/users/u/sessions/s").json()
        assert [e["id"] for e in stored["events"][1:]] == [e["id"] for e in committed]
        assert stored["state"]["user:notes"] == ["tea is hot"]
