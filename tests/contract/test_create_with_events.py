"""``POST …/sessions`` with ``events`` (google-adk's API shape) is one atomic create.

On every backend, through the HTTP route: every event is checked before anything is written
(a refused request writes no session, no event and no app or user state, and is refused again
the same way with one typed line), and the session row, its state, the ``app:``/``user:`` keys
of its state and its events commit together, so no reader ever sees a half-made session.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from adk_runtime.events._internal_metadata import RESTORED_EVENT_KEY
from adk_runtime.server import create_app
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import text_event
from tests.server.agent import root_agent

APP = root_agent.name
URL = f"/apps/{APP}/users/u/sessions"
Body = dict[str, Any]


def _event(text: str, event_id: str, **actions: Any) -> dict[str, Any]:
    event = text_event(text)
    event.id = event_id
    event.invocation_id = "i-restored"
    shown: dict[str, Any] = event.model_dump(mode="json", by_alias=True, exclude_none=True)
    if actions:
        shown["actions"] = actions
    return shown


def good_body() -> Body:
    return {
        "sessionId": "s",
        "state": {"topic": "fruit", "app:shared": "new", "user:name": "zoë", "temp:t": 1},
        "events": [_event("one", "e1"), _event("two", "e2"), _event("three", "e3")],
    }


@pytest.fixture
async def client(session_service: BaseSessionService) -> AsyncIterator[httpx.AsyncClient]:
    server = create_app(agent=root_agent, session_service=session_service)
    transport = httpx.ASGITransport(app=server)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def _post(client: httpx.AsyncClient, body: Body) -> httpx.Response:
    """POST ``body`` as JSON text (NaN included: a client may send what httpx refuses to)."""
    headers = {"Content-Type": "application/json"}
    return await client.post(URL, content=json.dumps(body), headers=headers)


async def _with_witness(service: BaseSessionService) -> None:
    state = {"app:shared": "before", "user:name": "before", "own": 1}
    await service.create_session(app_name=APP, user_id="u", session_id="witness", state=state)


async def _seen(service: BaseSessionService) -> tuple[Any, ...]:
    """Everything a create could have written: the user's sessions, app and user state."""
    page = await service.list_sessions(app_name=APP, user_id="u")
    witness = await service.get_session(app_name=APP, user_id="u", session_id="witness")
    assert witness is not None
    return sorted(s.id for s in page.sessions), witness.state, witness.revision


async def test_a_session_is_created_with_its_events_and_state_in_one_step(
    session_service: BaseSessionService, client: httpx.AsyncClient
) -> None:
    await _with_witness(session_service)
    body = good_body()
    body["events"][1]["actions"] = {"stateDelta": {"temp:scratch": 1}}  # dropped, as on append
    created = await client.post(URL, json=body)
    assert created.status_code == 200, created.text
    shown = created.json()
    assert [e["id"] for e in shown["events"]] == ["e1", "e2", "e3"]
    assert shown["revision"] == 3
    expected_state = {"topic": "fruit", "app:shared": "new", "user:name": "zoë"}
    assert shown["state"] == expected_state
    stored = await session_service.get_session(app_name=APP, user_id="u", session_id="s")
    assert stored is not None
    assert stored.revision == 3
    assert [e.id for e in stored.events] == ["e1", "e2", "e3"]
    sent = body["events"]
    assert [e.timestamp for e in stored.events] == [e["timestamp"] for e in sent]
    assert all(e.custom_metadata == {RESTORED_EVENT_KEY: True} for e in stored.events)
    assert all(not e.actions.state_delta for e in stored.events)
    assert stored.state == expected_state
    # app and user state were merged in the same step: every session of the app sees them
    witness = await session_service.get_session(app_name=APP, user_id="u", session_id="witness")
    assert witness is not None
    assert witness.state == {"own": 1, "app:shared": "new", "user:name": "zoë"}
    # the HTTP view and the stored session agree, and the session takes appends as any other
    again = await client.get(f"{URL}/s")
    assert again.json()["events"] == shown["events"]
    await session_service.append_event(stored, text_event("four"))
    assert stored.revision == 4


def _set(index: int, field: str, value: Any) -> Callable[[Body], None]:
    def change(body: Body) -> None:
        body["events"][index][field] = value

    return change


def _same_id(body: Body) -> None:
    body["events"][2] = dict(body["events"][0])  # the same event twice


def _delta(delta: dict[str, Any]) -> Callable[[Body], None]:
    def change(body: Body) -> None:
        body["events"][0]["actions"] = {"stateDelta": delta}

    return change


def _actions(actions: dict[str, Any]) -> Callable[[Body], None]:
    def change(body: Body) -> None:
        body["events"][0]["actions"] = actions

    return change


# name → (how the good body is changed, what the one error line says)
BAD: dict[str, tuple[Callable[[Body], None], str]] = {
    "the same event twice": (_same_id, "events[2] has the id of events[0]"),
    "two events under one id": (_set(1, "id", "e1"), "events[1] has the id of events[0]"),
    "an event id of 300 characters": (
        _set(2, "id", "x" * 300),
        "events[2]: event.id is 300 characters long",
    ),
    "an invocation id with a control character": (
        _set(1, "invocationId", "a\x01b"),
        "events[1]: event.invocation_id",
    ),
    "a number that is not finite": (
        _set(2, "customMetadata", {"score": math.nan}),
        "events[2] cannot be stored",
    ),
    "an app: state delta": (_delta({"app:shared": "from history"}), "events[0] carries a state"),
    "a user: state delta": (_delta({"user:name": "from history"}), "events[0] carries a state"),
    "a session state delta": (_delta({"topic": "veg", "temp:t": 1}), "events[0] carries a state"),
    "an artifact the session does not have": (
        _actions({"artifactDelta": {"report.txt": 0}}),
        "events[0] names artifact versions",
    ),
}


@pytest.mark.parametrize("name", BAD)
async def test_a_bad_request_writes_nothing_and_is_refused_every_time(
    session_service: BaseSessionService, client: httpx.AsyncClient, name: str
) -> None:
    await _with_witness(session_service)
    change, message = BAD[name]
    body = good_body()
    change(body)
    before = await _seen(session_service)
    details = []
    for _ in range(2):
        refused = await _post(client, body)
        assert refused.status_code == 422, refused.text
        details.append(refused.json()["detail"])
        assert await _seen(session_service) == before
    assert message in details[0]
    assert "Nothing was created" in details[0]
    assert details[0] == details[1]
    assert "\n" not in details[0]


async def test_a_taken_id_is_a_409_and_the_session_is_untouched(
    session_service: BaseSessionService, client: httpx.AsyncClient
) -> None:
    await _with_witness(session_service)
    body = good_body()
    body["sessionId"] = "witness"
    before = await _seen(session_service)
    refused = await client.post(URL, json=body)
    assert refused.status_code == 409, refused.text
    assert await _seen(session_service) == before


async def test_a_reader_sees_no_session_or_all_of_it(
    session_service: BaseSessionService, client: httpx.AsyncClient
) -> None:
    count = 60
    body = {"sessionId": "big", "events": [_event(f"m{i}", f"e{i}") for i in range(count)]}
    sizes: list[int] = []

    async def read_until(done: asyncio.Event) -> None:
        while not done.is_set():
            seen = await session_service.get_session(app_name=APP, user_id="u", session_id="big")
            if seen is not None:
                sizes.append(len(seen.events))
                assert seen.revision == len(seen.events)
            await asyncio.sleep(0)

    done = asyncio.Event()
    reader = asyncio.create_task(read_until(done))
    try:
        created = await client.post(URL, json=body)
    finally:
        done.set()
        await reader
    assert created.status_code == 200, created.text
    assert set(sizes) <= {count}
