"""Tool authentication over the HTTP API: the client never reads a credential back."""

from __future__ import annotations

import httpx

from tests.serving import running_server

SECRET = "key-that-must-not-come-back"


def test_credential_round_trip_over_http_and_no_secret_is_served() -> None:
    with running_server(
        "--agent", "tests.tools.auth_agent:root_agent", "--session-url", "memory://",
        "--log-level", "warning",
    ) as base:  # fmt: skip
        httpx.post(f"{base}/apps/bank/users/u/sessions/s").raise_for_status()
        message = {"role": "user", "parts": [{"text": "my balance?"}]}
        body = {"userId": "u", "sessionId": "s", "newMessage": message}
        paused = httpx.post(f"{base}/run", json=body, timeout=60).json()
        ask = paused[1]["content"]["parts"][0]["functionCall"]
        assert ask["name"] == "adk_request_credential"
        assert ask["args"]["functionCallId"] == "b1"
        config = dict(ask["args"]["authConfig"])
        config["exchangedAuthCredential"] = {"authType": "apiKey", "apiKey": SECRET}
        answer = {"functionResponse": {"id": ask["id"], "name": ask["name"], "response": config}}
        body["newMessage"] = {"role": "user", "parts": [answer]}
        resumed = httpx.post(f"{base}/run", json=body, timeout=60)
        assert SECRET not in resumed.text
        result = resumed.json()[0]["content"]["parts"][0]["functionResponse"]["response"]
        assert result == {"balance": 42, "key_length": len(SECRET)}
        stored = httpx.get(f"{base}/apps/bank/users/u/sessions/s")
        stored.raise_for_status()
        assert SECRET not in stored.text  # the stored answer is served without its key
        events = httpx.get(f"{base}/apps/bank/users/u/sessions/s").json()["events"]
        answered = [e for e in events if e["author"] == "user"][-1]
        response = answered["content"]["parts"][0]["functionResponse"]["response"]
        assert response["exchangedAuthCredential"] == {"authType": "apiKey"}
