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


def test_a_served_workflow_asks_for_a_key_and_never_serves_it_back(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'vault.db'}"
    agent = "tests.workflow.served_workflow:keyed_workflow"
    with running_server("--agent", agent, "--session-url", url, "--log-level", "warning") as base:
        httpx.post(f"{base}/apps/vault/users/u/sessions/s").raise_for_status()
        first = _run(base, {"role": "user", "parts": [{"text": "open"}]})
        [call] = [
            part["functionCall"]
            for event in first
            for part in (event.get("content") or {}).get("parts", [])
            if "functionCall" in part
        ]
        assert (call["id"], call["name"]) == ("wf_auth:vault@1/ledger@1", "adk_request_credential")
        assert "server-side-placeholder" not in str(first)

        def send(response: dict[str, Any]) -> httpx.Response:
            answer = {"id": call["id"], "name": call["name"], "response": response}
            message = {"role": "user", "parts": [{"functionResponse": answer}]}
            body = {
                "userId": "u",
                "sessionId": "s",
                "newMessage": message,
                "invocationId": first[0]["invocationId"],
            }
            return httpx.post(f"{base}/run", json=body, timeout=30)

        assert send({"no": "credential"}).status_code == 422  # refused, nothing stored
        secret = "user-key-0123456789"
        done = send({"result": secret})
        assert done.status_code == 200, done.text
        assert _outputs(done.json()) == {
            "vault@1/ledger@1": f"ledger opened with a key of {len(secret)} characters"
        }
        stored = httpx.get(f"{base}/apps/vault/users/u/sessions/s").json()
        assert secret not in done.text
        assert secret not in str(stored)
        assert len(stored["events"]) == len(first) + len(done.json()) + 2  # + the two messages
