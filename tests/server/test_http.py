"""The HTTP API through a real uvicorn server (`adk-runtime serve`) on 127.0.0.1 and httpx."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest

from tests.serving import running_server

pytestmark = pytest.mark.sqlite

TOKEN = "test-token-123"
APP = "echo_app"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One server for the module, on a real SQLite file, requiring a bearer token."""
    db = tmp_path_factory.mktemp("http") / "sessions.db"
    with running_server(
        "--agent", "tests.server.agent:root_agent", "--session-url", f"sqlite+aiosqlite:///{db}",
        "--auth-token", TOKEN, "--log-level", "warning",
    ) as url:  # fmt: skip
        yield url


@pytest.fixture
async def client(base_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=base_url, headers=AUTH, timeout=30) as c:
        yield c


@pytest.fixture
def user() -> str:
    return f"u-{uuid.uuid4().hex[:8]}"


def sessions_url(user: str, session_id: str | None = None) -> str:
    url = f"/apps/{APP}/users/{user}/sessions"
    return url if session_id is None else f"{url}/{session_id}"


def message(text: str) -> dict[str, Any]:
    return {"role": "user", "parts": [{"text": text}]}


async def new_session(client: httpx.AsyncClient, user: str, **body: Any) -> dict[str, Any]:
    response = await client.post(sessions_url(user), json=body or None)
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


async def sse_events(
    client: httpx.AsyncClient, body: dict[str, Any]
) -> tuple[int, list[dict[str, Any]]]:
    """POST /run_sse and parse the stream message by message."""
    events: list[dict[str, Any]] = []
    async with client.stream("POST", "/run_sse", json=body) as response:
        if response.status_code != 200:
            await response.aread()
            return response.status_code, [response.json()]
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[len("data: ") :]))
            else:
                assert line == "", line
    return 200, events


# --- apps, auth --------------------------------------------------------------------------


async def test_list_apps(client: httpx.AsyncClient) -> None:
    response = await client.get("/list-apps")
    assert response.status_code == 200
    assert response.json() == [APP]


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}]
)
async def test_requests_without_the_token_get_401(base_url: str, headers: dict[str, str]) -> None:
    async with httpx.AsyncClient(base_url=base_url, headers=headers) as anonymous:
        for method, path in [("GET", "/list-apps"), ("POST", sessions_url("x")), ("POST", "/run")]:
            response = await anonymous.request(method, path, json={})
            assert response.status_code == 401, (method, path)
            assert "Bearer" in response.json()["detail"]
        assert (await anonymous.get("/health")).status_code == 200


async def test_unknown_app_is_404(client: httpx.AsyncClient, user: str) -> None:
    response = await client.get(f"/apps/other/users/{user}/sessions")
    assert response.status_code == 404
    assert "other" in response.json()["detail"]


# --- sessions ----------------------------------------------------------------------------


async def test_create_without_id_and_get_in_camel_case(
    client: httpx.AsyncClient, user: str
) -> None:
    created = await new_session(client, user, state={"color": "blue", "user:lang": "fr"})
    assert created["appName"] == APP
    assert created["userId"] == user
    assert created["state"] == {"color": "blue", "user:lang": "fr"}
    assert created["events"] == []
    assert created["revision"] == 0
    fetched = (await client.get(sessions_url(user, created["id"]))).json()
    assert fetched["id"] == created["id"]
    assert fetched["state"] == created["state"]
    assert "lastUpdateTime" in fetched


async def test_create_with_events_is_one_write_and_a_bad_event_writes_nothing(
    client: httpx.AsyncClient, user: str
) -> None:
    def event(event_id: str, **fields: Any) -> dict[str, Any]:
        text = {"role": "user", "parts": [{"text": event_id}]}
        return {"id": event_id, "author": "user", "invocationId": "i", "content": text, **fields}

    bad = [event("e1"), event("e2", actions={"stateDelta": {"user:lang": "de"}})]
    body = {"sessionId": "h", "state": {"user:lang": "fr"}, "events": bad}
    refused = await client.post(sessions_url(user), json=body)
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"].startswith("events[1] carries a state delta")
    assert (await client.get(sessions_url(user, "h"))).status_code == 404
    assert (await client.get(sessions_url(user))).json() == []

    body["events"] = [event("e1"), event("e2", actions={"stateDelta": {"temp:t": 1}})]
    created = await client.post(sessions_url(user), json=body)
    assert created.status_code == 200, created.text
    fetched = (await client.get(sessions_url(user, "h"))).json()
    assert [e["id"] for e in fetched["events"]] == ["e1", "e2"]
    assert (fetched["revision"], fetched["state"]) == (2, {"user:lang": "fr"})
    again = await client.post(sessions_url(user), json=body)
    assert again.status_code == 409, again.text


async def test_a_session_created_with_events_forks_from_its_given_state(
    client: httpx.AsyncClient, user: str
) -> None:
    events = [
        {"id": eid, "author": "user", "invocationId": "i", "content": message(eid)}
        for eid in ("e1", "e2")
    ]
    body = {"sessionId": "h", "state": {"c": 1}, "events": events}
    assert (await client.post(sessions_url(user), json=body)).status_code == 200
    changed = await client.patch(sessions_url(user, "h"), json={"stateDelta": {"c": 2}})
    assert changed.json()["state"] == {"c": 2}
    fork = await client.post(
        sessions_url(user, "h") + "/fork", json={"newSessionId": "f", "atEventId": "e2"}
    )
    assert fork.status_code == 200, fork.text
    assert fork.json()["state"] == {"c": 1}  # the state given at creation, not lost


async def test_create_with_id_in_body_and_in_path(client: httpx.AsyncClient, user: str) -> None:
    by_body = await new_session(client, user, sessionId="s-body")
    assert by_body["id"] == "s-body"
    snake = await new_session(client, user, session_id="s-snake")
    assert snake["id"] == "s-snake"
    response = await client.post(sessions_url(user, "s-path"), json={"k": 1})
    assert response.status_code == 200
    assert response.json()["id"] == "s-path"
    assert response.json()["state"] == {"k": 1}
    no_body = await client.post(sessions_url(user, "s-nobody"))
    assert no_body.status_code == 200


async def test_duplicate_session_is_409(client: httpx.AsyncClient, user: str) -> None:
    await new_session(client, user, sessionId="dup")
    again = await client.post(sessions_url(user), json={"sessionId": "dup"})
    assert again.status_code == 409
    assert "dup" in again.json()["detail"]
    by_path = await client.post(sessions_url(user, "dup"))
    assert by_path.status_code == 409


async def test_missing_session_is_404(client: httpx.AsyncClient, user: str) -> None:
    assert (await client.get(sessions_url(user, "nope"))).status_code == 404
    assert (await client.delete(sessions_url(user, "nope"))).status_code == 404
    patch = await client.patch(sessions_url(user, "nope"), json={"stateDelta": {"a": 1}})
    assert patch.status_code == 404


async def test_bad_input_is_422_with_a_message(client: httpx.AsyncClient, user: str) -> None:
    too_long = "x" * 300
    response = await client.post(sessions_url(user), json={"sessionId": too_long})
    assert response.status_code == 422
    assert "session_id" in response.json()["detail"]
    assert (await client.get(sessions_url(user) + "?pageSize=0")).status_code == 422
    bad_token = await client.get(sessions_url(user) + "?pageSize=2&pageToken=garbage!")
    assert bad_token.status_code == 422
    assert "page_token" in bad_token.json()["detail"]
    not_json = await client.post(
        sessions_url(user), content=b"{", headers={"content-type": "application/json"}
    )
    assert not_json.status_code == 422
    nul = await client.post(sessions_url(user), json={"state": {"a": "x\u0000y"}})
    assert nul.status_code == 422
    assert "state" in nul.json()["detail"]


async def test_list_sessions_and_pages(client: httpx.AsyncClient, user: str) -> None:
    ids = {(await new_session(client, user))["id"] for _ in range(5)}
    everything = (await client.get(sessions_url(user))).json()
    assert isinstance(everything, list)
    assert {s["id"] for s in everything} == ids
    assert all(s["events"] == [] for s in everything)
    seen: list[str] = []
    token: str | None = None
    while True:
        params: dict[str, Any] = {"pageSize": 2}
        if token:
            params["pageToken"] = token
        page = (await client.get(sessions_url(user), params=params)).json()
        assert len(page["sessions"]) <= 2
        seen.extend(s["id"] for s in page["sessions"])
        token = page["nextPageToken"]
        if not token:
            break
    assert sorted(seen) == sorted(ids)


async def test_delete_session(client: httpx.AsyncClient, user: str) -> None:
    created = await new_session(client, user)
    response = await client.delete(sessions_url(user, created["id"]))
    assert response.status_code == 200
    assert (await client.get(sessions_url(user, created["id"]))).status_code == 404


async def test_patch_commits_a_state_event(client: httpx.AsyncClient, user: str) -> None:
    created = await new_session(client, user, state={"a": 1})
    response = await client.patch(
        sessions_url(user, created["id"]), json={"stateDelta": {"b": 2, "user:c": 3}}
    )
    assert response.status_code == 200
    body = response.json()
    assert body["state"] == {"a": 1, "b": 2, "user:c": 3}
    assert body["revision"] == 1
    assert body["events"][0]["author"] == "user"
    assert body["events"][0]["actions"]["stateDelta"] == {"b": 2, "user:c": 3}


# --- run ---------------------------------------------------------------------------------


async def test_run_returns_the_committed_events(client: httpx.AsyncClient, user: str) -> None:
    session = await new_session(client, user)
    body = {"appName": APP, "userId": user, "sessionId": session["id"], "newMessage": message("hi")}
    response = await client.post("/run", json=body)
    assert response.status_code == 200, response.text
    events = response.json()
    assert [e["content"]["parts"][0]["text"] for e in events] == ["echo: hi"]
    assert events[0]["author"] == APP
    assert events[0]["invocationId"]
    assert events[0]["actions"]["stateDelta"] == {"turns": 1}
    stored = (await client.get(sessions_url(user, session["id"]))).json()
    assert stored["revision"] == 2  # the user's message and the reply
    assert [e["id"] for e in stored["events"]][1:] == [events[0]["id"]]
    assert stored["state"]["turns"] == 1
    # snake_case is accepted too, and the app defaults to the served one
    snake = {"user_id": user, "session_id": session["id"], "new_message": message("again")}
    again = await client.post("/run", json=snake)
    assert again.status_code == 200
    assert again.json()[0]["actions"]["stateDelta"] == {"turns": 2}


async def test_run_errors(client: httpx.AsyncClient, user: str) -> None:
    missing = await client.post(
        "/run", json={"userId": user, "sessionId": "nope", "newMessage": message("x")}
    )
    assert missing.status_code == 404
    assert "nope" in missing.json()["detail"]
    no_user = await client.post("/run", json={"sessionId": "s"})
    assert no_user.status_code == 422
    bad_message = await client.post(
        "/run", json={"userId": user, "sessionId": "s", "newMessage": 3}
    )
    assert bad_message.status_code == 422
    other_app = await client.post("/run", json={"appName": "zzz", "userId": user, "sessionId": "s"})
    assert other_app.status_code == 404
    session = await new_session(client, user)
    bad_delta = await client.post(
        "/run",
        json={"userId": user, "sessionId": session["id"], "stateDelta": {"a": "\u0000"}},
    )
    assert bad_delta.status_code == 422
    assert (await client.get(sessions_url(user, session["id"]))).json()["revision"] == 0


async def test_an_idempotency_key_answers_once_and_refuses_another_message(
    client: httpx.AsyncClient, user: str
) -> None:
    session = await new_session(client, user)
    body = {"userId": user, "sessionId": session["id"], "newMessage": message("hi")}
    key = {"Idempotency-Key": f"k-{uuid.uuid4().hex[:8]}"}
    first = await client.post("/run", json=body, headers=key)
    retry = await client.post("/run", json=body, headers=key)
    assert first.status_code == retry.status_code == 200
    assert [e["id"] for e in retry.json()] == [e["id"] for e in first.json()]
    other = await client.post("/run", json={**body, "newMessage": message("bye")}, headers=key)
    assert other.status_code == 409
    assert key["Idempotency-Key"] in other.json()["detail"]
    assert "bye" not in other.json()["detail"]
    async with client.stream(
        "POST", "/run_sse", json={**body, "newMessage": message("bye")}, headers=key
    ) as streamed:
        await streamed.aread()
    assert streamed.status_code == 409
    stored = (await client.get(sessions_url(user, session["id"]))).json()
    assert stored["revision"] == 2
    assert stored["state"]["turns"] == 1


async def test_agent_failure_keeps_what_was_committed(client: httpx.AsyncClient, user: str) -> None:
    session = await new_session(client, user)
    body = {"userId": user, "sessionId": session["id"], "newMessage": message("fail")}
    response = await client.post("/run", json=body)
    assert response.status_code == 500
    assert "the agent broke" in response.json()["detail"]
    stored = (await client.get(sessions_url(user, session["id"]))).json()
    assert [e["author"] for e in stored["events"]] == ["user", APP]
    status, events = await sse_events(client, body)
    assert status == 200
    assert events[0]["content"]["parts"][0]["text"] == "about to fail"
    assert events[-1]["error"] == "RuntimeError: the agent broke"


async def test_run_sse_streams_partials_then_the_committed_event(
    client: httpx.AsyncClient, user: str
) -> None:
    session = await new_session(client, user)
    body = {
        "userId": user,
        "sessionId": session["id"],
        "newMessage": message("stream"),
        "streaming": True,
    }
    status, events = await sse_events(client, body)
    assert status == 200
    assert [e.get("partial", False) for e in events] == [True, True, True, False]
    assert [e["content"]["parts"][0]["text"] for e in events] == [
        "Hel",
        "lo, ",
        "world",
        "Hello, world",
    ]
    stored = (await client.get(sessions_url(user, session["id"]))).json()
    assert [e["id"] for e in stored["events"]][-1] == events[-1]["id"]
    assert stored["revision"] == 2  # partials are never stored
    body["streaming"] = False
    _, plain = await sse_events(client, body)
    assert [e.get("partial", False) for e in plain] == [False]


async def test_run_sse_errors_before_the_stream_get_a_status(
    client: httpx.AsyncClient, user: str
) -> None:
    status, body = await sse_events(
        client, {"userId": user, "sessionId": "nope", "newMessage": message("x")}
    )
    assert status == 404
    assert "nope" in body[0]["detail"]
    status, _ = await sse_events(client, {"userId": user})
    assert status == 422


async def test_missing_session_says_which_route_creates_it(
    client: httpx.AsyncClient, user: str
) -> None:
    body = {"userId": user, "sessionId": "later", "newMessage": message("hi"), "streaming": True}
    status, answer = await sse_events(client, body)
    assert status == 404
    detail = answer[0]["detail"]
    assert "auto_create_session" not in detail
    route = sessions_url(user, "later")
    assert f"POST {route} " in detail
    plain = await client.post("/run", json=body)
    assert plain.status_code == 404
    assert f"POST {route} " in plain.json()["detail"]
    # Doing what the message says works.
    assert (await client.post(route, json={})).status_code == 200
    status, events = await sse_events(client, body)
    assert status == 200
    assert events


async def test_disconnect_mid_stream_loses_nothing(client: httpx.AsyncClient, user: str) -> None:
    session = await new_session(client, user)
    body = {"userId": user, "sessionId": session["id"], "newMessage": message("slow 5")}
    async with client.stream("POST", "/run_sse", json=body) as response:
        async for line in response.aiter_lines():
            if line.startswith("data: "):
                first = json.loads(line[6:])
                break
    # The client is gone after one event; the invocation runs on to completion.
    assert first["actions"]["stateDelta"] == {"step": 1}
    # A message for the same session waits for the running turn, then runs after it.
    after = await client.post("/run", json={**body, "newMessage": message("hi")})
    assert after.status_code == 200
    stored = await _wait_for_revision(client, user, session["id"], 8)
    assert [e["actions"].get("stateDelta") for e in stored["events"][1:6]] == [
        {"step": i} for i in range(1, 6)
    ]
    assert stored["events"][6]["author"] == "user"
    assert stored["state"]["step"] == 5
    assert len({e["id"] for e in stored["events"]}) == 8


async def _wait_for_revision(
    client: httpx.AsyncClient, user: str, session_id: str, revision: int
) -> dict[str, Any]:
    for _ in range(100):
        stored: dict[str, Any] = (await client.get(sessions_url(user, session_id))).json()
        assert stored["revision"] == len(stored["events"])
        if stored["revision"] >= revision:
            return stored
        await asyncio.sleep(0.1)
    raise AssertionError(f"session stuck at revision {stored['revision']}")


async def test_two_concurrent_runs_on_one_session(client: httpx.AsyncClient, user: str) -> None:
    session = await new_session(client, user)
    body = {"userId": user, "sessionId": session["id"], "newMessage": message("slow 3")}
    first, second = await asyncio.gather(
        client.post("/run", json=body), client.post("/run", json=body)
    )
    # The second waited for the first (well within the server's session wait), then ran.
    assert [first.status_code, second.status_code] == [200, 200]
    stored = (await client.get(sessions_url(user, session["id"]))).json()
    assert stored["revision"] == 8
    authors = [e["author"] for e in stored["events"]]
    assert authors[0] == authors[4] == "user"
    assert "user" not in authors[1:4] + authors[5:]


# --- artifacts ---------------------------------------------------------------------------


async def test_artifact_routes(client: httpx.AsyncClient, user: str) -> None:
    session = await new_session(client, user)
    run = await client.post(
        "/run", json={"userId": user, "sessionId": session["id"], "newMessage": message("artifact")}
    )
    assert run.json()[0]["actions"]["artifactDelta"] == {"report.txt": 1}
    base = sessions_url(user, session["id"]) + "/artifacts"
    assert (await client.get(base)).json() == ["report.txt"]
    assert (await client.get(base + "/report.txt/versions")).json() == [0, 1]
    latest = (await client.get(base + "/report.txt")).json()
    assert latest["inlineData"]["mimeType"] == "text/plain"
    assert _b64(latest) == b"second"
    assert _b64((await client.get(base + "/report.txt", params={"version": 0})).json()) == b"first"
    assert _b64((await client.get(base + "/report.txt/versions/0")).json()) == b"first"
    assert _b64((await client.get(base + "/report.txt/versions/latest")).json()) == b"second"
    assert (await client.get(base + "/report.txt/versions/abc")).status_code == 422
    assert (await client.get(base + "/report.txt/versions/7")).status_code == 404
    assert (await client.get(base + "/missing.txt")).status_code == 404
    assert (await client.delete(base + "/report.txt")).status_code == 200
    assert (await client.get(base)).json() == []
    assert (await client.get(base + "/report.txt")).status_code == 404


def _b64(part: dict[str, Any]) -> bytes:
    import base64

    data: str = part["inlineData"]["data"]
    return base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))


async def test_memory_route_without_a_memory_service_is_422(
    client: httpx.AsyncClient, user: str
) -> None:
    session = await new_session(client, user)
    response = await client.patch(
        f"/apps/{APP}/users/{user}/memory", json={"sessionId": session["id"]}
    )
    assert response.status_code == 422
    assert "--memory-url" in response.json()["detail"]


async def test_artifact_save_and_metadata(client: httpx.AsyncClient, user: str) -> None:
    session = await new_session(client, user)
    base = sessions_url(user, session["id"]) + "/artifacts"
    part = {"inlineData": {"mimeType": "text/plain", "data": "aGVsbG8="}}  # "hello"
    saved = await client.post(
        base, json={"filename": "dir/a.txt", "artifact": part, "customMetadata": {"k": 1}}
    )
    assert saved.status_code == 200, saved.text
    assert saved.json()["version"] == 0
    assert saved.json()["customMetadata"] == {"k": 1}
    second = await client.post(base, json={"filename": "dir/a.txt", "artifact": part})
    assert second.json()["version"] == 1
    listed = (await client.get(base + "/dir/a.txt/versions/metadata")).json()
    assert [m["version"] for m in listed] == [0, 1]
    latest = await client.get(base + "/dir/a.txt/versions/latest/metadata")
    assert latest.json()["version"] == 1
    assert latest.json()["mimeType"] == "text/plain"
    assert (await client.get(base + "/dir/a.txt/versions/9/metadata")).status_code == 404
    assert _b64((await client.get(base + "/dir/a.txt")).json()) == b"hello"
    bad = await client.post(base, json={"filename": "../escape", "artifact": part})
    assert bad.status_code == 422
