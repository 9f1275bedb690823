"""A workflow served over HTTP by a real ``adk-runtime serve`` process on a SQLite file: the
question pauses the run, the answer (another request) continues it, a restart changes nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx

from tests.serving import running_server

AGENT = "tests.workflow.served_workflow:workflow"


def _run(base: str, message: dict[str, Any]) -> list[dict[str, Any]]:
    body = {"userId": "u", "sessionId": "s", "newMessage": message}
    response = httpx.post(f"{base}/run", json=body, timeout=30)
    assert response.status_code == 200, response.text
    events: list[dict[str, Any]] = response.json()
    return events


def _outputs(events: list[dict[str, Any]]) -> dict[str, Any]:
    return {e["nodeInfo"]["path"]: e["output"] for e in events if e.get("output") is not None}


def test_a_served_workflow_pauses_and_continues_across_a_restart(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'desk.db'}"
    args = ("--agent", AGENT, "--session-url", url, "--log-level", "warning")
    with running_server(*args) as base:
        assert httpx.get(f"{base}/list-apps").json() == ["desk"]
        httpx.post(f"{base}/apps/desk/users/u/sessions/s").raise_for_status()
        first = _run(base, {"role": "user", "parts": [{"text": "  Invoices "}]})
        assert _outputs(first) == {"desk@1/intake@1": "invoices"}
        [call] = [
            part["functionCall"]
            for event in first
            for part in (event.get("content") or {}).get("parts", [])
            if "functionCall" in part
        ]
        assert (call["id"], call["name"]) == ("confirm", "adk_request_input")

    with running_server(*args) as base:  # another process answers
        answer = {"id": "confirm", "name": "adk_request_input", "response": {"result": "maybe"}}
        refused = httpx.post(
            f"{base}/run",
            json={"userId": "u", "sessionId": "s", "newMessage": {
                "role": "user", "parts": [{"functionResponse": answer}]}},
            timeout=30,
        )  # fmt: skip
        assert refused.status_code == 422  # a wrong answer: refused, nothing stored
        answer["response"] = {"result": True}
        second = _run(base, {"role": "user", "parts": [{"functionResponse": answer}]})
        assert _outputs(second) == {"desk@1/confirm@1": True, "desk@1/file@1": "filed   Invoices "}
        stored = httpx.get(f"{base}/apps/desk/users/u/sessions/s").json()
        assert stored["state"] == {"topic": "  Invoices "}
        assert {e["invocationId"] for e in stored["events"]} == {first[0]["invocationId"]}
