"""Tool confirmation over the HTTP API, answered the way the ADK web client answers."""

from __future__ import annotations

import json

import httpx

from tests.serving import running_server


def test_confirmation_round_trip_over_http() -> None:
    with running_server(
        "--agent", "tests.tools.confirm_agent:root_agent", "--session-url", "memory://",
        "--log-level", "warning",
    ) as base:  # fmt: skip
        httpx.post(f"{base}/apps/files/users/u/sessions/s").raise_for_status()
        message = {"role": "user", "parts": [{"text": "delete /tmp/a.txt"}]}
        body = {"userId": "u", "sessionId": "s", "newMessage": message}
        paused = httpx.post(f"{base}/run", json=body, timeout=60).json()
        call, request, pending = paused
        ask = request["content"]["parts"][0]["functionCall"]
        assert ask["name"] == "adk_request_confirmation"
        assert ask["args"]["originalFunctionCall"]["args"] == {"path": "/tmp/a.txt"}
        assert request["longRunningToolIds"] == [ask["id"]]
        assert "d1" in pending["actions"]["requestedToolConfirmations"]
        answer = {
            "functionResponse": {
                "id": ask["id"],
                "name": "adk_request_confirmation",
                "response": {"response": json.dumps({"confirmed": True})},
            }
        }
        body["newMessage"] = {"role": "user", "parts": [answer]}
        resumed = httpx.post(f"{base}/run", json=body, timeout=60).json()
        result = resumed[0]["content"]["parts"][0]["functionResponse"]
        assert result["response"] == {"deleted": "/tmp/a.txt"}
        assert resumed[-1]["content"]["parts"][0]["text"] == "deleted it"
        assert {e["invocationId"] for e in resumed} == {call["invocationId"]}
        stored = httpx.get(f"{base}/apps/files/users/u/sessions/s").json()
        assert stored["state"]["deleted"] == "/tmp/a.txt"
