"""An import checks the whole file first and writes each session whole or not at all.

Every bad file is refused with one typed error naming its line, writes nothing (no session,
no event, app and user state unchanged), and is refused again the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from adk_runtime.errors import BackendUnavailableError, InputValidationError
from adk_runtime.sessions import BaseSessionService, transfer
from adk_runtime.testing import text_event

APP = "import_app"
Lines = list[dict[str, Any]]


def _event(text: str, event_id: str) -> dict[str, Any]:
    event = text_event(text, state_delta={"n": text})
    event.id = event_id
    return json.loads(event.model_dump_json(by_alias=True, exclude_none=True))


def good_file() -> Lines:
    def session(sid: str) -> dict[str, Any]:
        return {
            "kind": "session", "app_name": APP, "user_id": "u", "id": sid, "revision": 2,
            "last_update_time": 1.0, "state": {"n": "two"},
            "events": [_event("one", f"{sid}-e1"), _event("two", f"{sid}-e2")],
        }  # fmt: skip

    return [
        {"format": "adk-runtime-sessions", "version": 1, "apps": [APP]},
        session("s1"),
        session("s2"),
        {"kind": "app_state", "app_name": APP, "state": {"a": 1}},
        {"kind": "user_state", "app_name": APP, "user_id": "u", "state": {"b": 2}},
        {"kind": "end", "sessions": 2, "events": 4, "app_states": 1, "user_states": 1},
    ]


def _set(path: tuple[Any, ...], value: Any) -> Callable[[Lines], None]:
    def change(lines: Lines) -> None:
        target: Any = lines
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value

    return change


def _drop(index: int, field: str) -> Callable[[Lines], None]:
    return lambda lines: lines[index].pop(field) and None


def _duplicate_id(lines: Lines) -> None:
    lines[2]["events"][1]["id"] = lines[2]["events"][0]["id"]


def _extra_session(lines: Lines) -> None:  # the footer still announces 1 session
    lines[-1]["sessions"], lines[-1]["events"] = 1, 2


# name → (how the good file is changed, what the one error says)
BAD: dict[str, tuple[Callable[[Lines], None], str]] = {
    "revision above the events": (_set((2, "revision"), 5), "Line 3: field 'revision' is 5"),
    "an event id twice": (_duplicate_id, "Line 3: field 'events[1]' has the id of an earlier"),
    "an event id of 300 characters": (
        _set((2, "events", 0, "id"), "x" * 300),
        "Line 3: field 'events[0]': event.id is 300 characters long",
    ),
    "a footer announcing fewer sessions": (_extra_session, "announces 1 sessions but the file"),
    "an app the header does not declare": (
        _set((2, "app_name"), "other_app"),
        "Line 3: field 'app_name' names an app the header",
    ),
    "app: state in a session line": (
        _set((2, "state", "app:x"), 1),
        "Line 3: field 'state' holds a key starting with 'app:'",
    ),
    "user: state in a session line": (
        _set((2, "state", "user:x"), 1),
        "Line 3: field 'state' holds a key starting with 'user:'",
    ),
    "state that is a list": (_set((2, "state"), [1]), "field 'state' must be an object, not a"),
    "events that are an object": (_set((2, "events"), {}), "'events' must be an array"),
    "an event that is text": (_set((2, "events", 0), "{}"), "'events[0]' is a JSON string"),
    "an event that is not an event": (
        _set((2, "events", 0, "author"), 5),
        "'events[0]' is not an event (author:",
    ),
    "a missing user id": (_drop(2, "user_id"), "Line 3: field 'user_id' is missing"),
    "a user id that is a number": (_set((2, "user_id"), 7), "'user_id' must be a string"),
    "a revision that is text": (_set((2, "revision"), "2"), "'revision' must be a whole number"),
    "an unknown kind": (_set((2, "kind"), "sessionz"), "Line 3: field 'kind' is not one of"),
    "a kind that is a number": (_set((2, "kind"), 3), "Line 3: field 'kind' is a number"),
    "app state that is text": (_set((3, "state"), "x"), "Line 4: field 'state' must be"),
    "a footer count that is text": (_set((5, "events"), "4"), "field 'events' must be a count"),
    "undecodable bytes in state": (
        _set((2, "state", "k"), {"$bytes": 5}),
        "Line 3: field 'state' holds a value in no known encoding",
    ),
    "a header without apps": (_drop(0, "apps"), "Line 1: field 'apps' is missing"),
}


async def _seen(service: BaseSessionService) -> tuple[Any, ...]:
    """Everything an import could have written: sessions, events, app and user state."""
    keys = sorted(await transfer.list_session_keys(service, APP))
    sessions = []
    for user_id, sid in keys:
        session = await service.get_session(app_name=APP, user_id=user_id, session_id=sid)
        assert session is not None
        sessions.append((user_id, sid, session.revision, [e.id for e in session.events]))
    witness = await service.get_session(app_name=APP, user_id="u", session_id="witness")
    assert witness is not None
    other = await transfer.list_session_keys(service, "other_app")
    return sessions, witness.state, other


async def _import(service: BaseSessionService, lines: Lines) -> transfer.ImportCounts:
    text = [json.dumps(line) for line in lines]
    counts = transfer.ImportCounts()
    await transfer.import_lines(service, lambda: enumerate(text, 1), counts)
    return counts


async def _with_witness(service: BaseSessionService) -> None:
    await service.create_session(
        app_name=APP,
        user_id="u",
        session_id="witness",
        state={"app:a": "before", "user:b": "before", "own": 1},
    )


@pytest.mark.parametrize("name", BAD)
async def test_a_bad_file_writes_nothing_and_is_refused_every_time(
    session_service: BaseSessionService, name: str
) -> None:
    await _with_witness(session_service)
    change, message = BAD[name]
    lines = good_file()
    change(lines)
    if name == "a footer announcing fewer sessions":
        assert len([line for line in lines if line.get("kind") == "session"]) == 2
    before = await _seen(session_service)
    errors = []
    for _ in range(2):
        with pytest.raises(InputValidationError) as caught:
            await _import(session_service, lines)
        errors.append(str(caught.value))
        assert await _seen(session_service) == before
    assert message in errors[0]
    assert errors[0] == errors[1]
    assert "\n" not in errors[0]


async def test_a_good_file_writes_each_session_whole_and_twice_changes_nothing(
    session_service: BaseSessionService,
) -> None:
    await _with_witness(session_service)
    counts = await _import(session_service, good_file())
    assert (counts.sessions_created, counts.events, counts.line) == (2, 4, None)
    session = await session_service.get_session(app_name=APP, user_id="u", session_id="s1")
    assert session is not None
    assert session.revision == 2
    assert [e.id for e in session.events] == ["s1-e1", "s1-e2"]
    # the session state is the file's; the events' deltas are not replayed into app state
    assert session.state == {"n": "two", "app:a": 1, "user:b": 2}
    seen = await _seen(session_service)
    again = await _import(session_service, good_file())
    assert (again.sessions_created, again.sessions_skipped, again.events) == (0, 2, 0)
    assert await _seen(session_service) == seen
    # the imported session takes appends like any other
    await session_service.append_event(session, text_event("three"))
    assert session.revision == 3
    # and a file holding the first two events of a session the target continued is present
    third = await _import(session_service, good_file())
    assert third.sessions_skipped == 2


def _state_lines(app_state: dict[str, Any], users: dict[str, dict[str, Any]]) -> Lines:
    lines: Lines = [{"format": "adk-runtime-sessions", "version": 1, "apps": [APP]}]
    lines.append({"kind": "app_state", "app_name": APP, "state": app_state})
    for user_id, state in users.items():
        lines.append({"kind": "user_state", "app_name": APP, "user_id": user_id, "state": state})
    end = {"kind": "end", "sessions": 0, "events": 0, "app_states": 1}
    return [*lines, {**end, "user_states": len(users)}]


async def test_state_lines_merge_into_app_and_user_state_without_any_session(
    session_service: BaseSessionService,
) -> None:
    await _with_witness(session_service)  # app:a, user:b of u, and its own key
    users = {"u": {"b": {"nested": True}, "c": 3}, "nobody": {"lang": "fr"}}
    counts = await _import(session_service, _state_lines({"a": 1, "z": [1, 2]}, users))
    assert (counts.app_states, counts.user_states, counts.sessions) == (1, 2, 0)
    witness = await session_service.get_session(app_name=APP, user_id="u", session_id="witness")
    assert witness is not None
    assert witness.state == {
        "own": 1, "app:a": 1, "app:z": [1, 2], "user:b": {"nested": True}, "user:c": 3
    }  # fmt: skip
    assert witness.revision == 0
    # a user without any session gets the state too; no session is made for it
    assert await session_service.get_user_state(app_name=APP, user_id="nobody") == {"lang": "fr"}
    assert await transfer.list_session_keys(session_service, APP) == [("u", "witness")]


async def test_a_store_failing_during_an_import_of_state_leaves_no_session_behind(
    session_service: BaseSessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def dies(*_: Any, **__: Any) -> None:  # the process stops before it deletes anything
        raise BackendUnavailableError("the store went away")

    monkeypatch.setattr(session_service, "_delete_session", dies)
    await _import(session_service, _state_lines({"a": 1}, {"u": {"b": 2}}))
    assert await transfer.list_session_keys(session_service, APP) == []
    assert await session_service.get_user_state(app_name=APP, user_id="u") == {"b": 2}
