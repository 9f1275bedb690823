"""Fork and rewind start from the session's creation state, on every backend.

The state "as of" a point is the creation state folded with the events up to it
(``sessions/fork.py`` ``session_state_at``). These are the siblings of the two regression
tests in ``tests/reliability/test_model_findings.py``: forks of forks, rewinds in forks,
repeated rewinds, forks of rewound sessions, imports (with and without the creation state in
the file) and sessions created with events.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, EventActions
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, transfer
from adk_runtime.sessions._create_with_events import create_with_events
from adk_runtime.testing import ScriptedAgent, text_event

APP = "creation"


async def _turn(service: BaseSessionService, session_id: str, delta: dict[str, Any]) -> str:
    """One Runner turn whose reply writes ``delta``; returns its invocation id."""
    agent = ScriptedAgent(name="a", script=[text_event("ok", state_delta=delta)])
    runner = Runner(app_name=APP, agent=agent, session_service=service)
    message = text_event("hi", role="user").content
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session_id, new_message=message)
    ]
    return events[0].invocation_id


async def _rewind(service: BaseSessionService, session_id: str, invocation_id: str) -> None:
    runner = Runner(app_name=APP, agent=ScriptedAgent(name="a"), session_service=service)
    await runner.rewind_async(
        user_id="u", session_id=session_id, rewind_before_invocation_id=invocation_id
    )


async def _state(service: BaseSessionService, session_id: str) -> dict[str, Any]:
    session = await service.get_session(app_name=APP, user_id="u", session_id=session_id)
    assert session is not None
    return {k: v for k, v in session.state.items() if ":" not in k}


async def _append(service: BaseSessionService, session_id: str, delta: dict[str, Any]) -> str:
    session = await service.get_session(app_name=APP, user_id="u", session_id=session_id)
    assert session is not None
    event = Event(author="a", actions=EventActions(state_delta=delta))
    return (await service.append_event(session, event)).id


async def _fork(service: BaseSessionService, source: str, new: str, at: str | None) -> None:
    await service.fork_session(
        app_name=APP, user_id="u", session_id=source, new_session_id=new, at_event_id=at
    )


async def test_a_fork_of_a_fork_keeps_the_creation_state(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(
        app_name=APP, user_id="u", session_id="s", state={"c": 1, "b": b"\x00", "app:a": 1}
    )
    first = await _append(session_service, "s", {"x": 1})
    await _append(session_service, "s", {"c": 2, "b": None})
    await _fork(session_service, "s", "f", None)
    assert await _state(session_service, "f") == {"c": 2, "b": None, "x": 1}
    await _fork(session_service, "f", "g", first)  # the fork's own earlier point
    assert await _state(session_service, "g") == {"c": 1, "b": b"\x00", "x": 1}
    await _append(session_service, "g", {"c": 7})
    await _fork(session_service, "g", "h", first)
    assert await _state(session_service, "h") == {"c": 1, "b": b"\x00", "x": 1}


async def test_a_rewind_in_a_fork_restores_the_creation_value(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u", session_id="s", state={"c": 1})
    turn = await _turn(session_service, "s", {"c": 2, "y": 1})
    await _fork(session_service, "s", "f", None)
    await _rewind(session_service, "f", turn)
    assert await _state(session_service, "f") == {"c": 1, "y": None}
    assert await _state(session_service, "s") == {"c": 2, "y": 1}  # the source keeps its own


async def test_rewinding_twice_and_forking_a_rewound_session(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u", session_id="s", state={"c": 1})
    first = await _turn(session_service, "s", {"c": 2, "a": 1})
    second = await _turn(session_service, "s", {"c": 3, "b": 1})
    await _rewind(session_service, "s", second)
    assert await _state(session_service, "s") == {"c": 2, "a": 1, "b": None}
    third = await _turn(session_service, "s", {"d": 1})
    session = await session_service.get_session(app_name=APP, user_id="u", session_id="s")
    assert session is not None
    # A fork at the rewind event: the rewound turn's writes no longer count.
    rewind_event = next(e for e in session.events if e.actions.rewind_before_invocation_id)
    await _fork(session_service, "s", "f", rewind_event.id)
    assert await _state(session_service, "f") == {"c": 2, "a": 1, "b": None}
    # Rewinding before the third turn, then before the first: each restores its point.
    await _rewind(session_service, "s", third)
    assert await _state(session_service, "s") == {"c": 2, "a": 1, "b": None, "d": None}
    await _rewind(session_service, "s", first)
    assert await _state(session_service, "s") == {"c": 1, "a": None, "b": None, "d": None}
    # The fork of the rewound session rewinds right too.
    await _rewind(session_service, "f", first)
    assert await _state(session_service, "f") == {"c": 1, "a": None, "b": None}


async def _export(service: BaseSessionService, session_id: str) -> list[str]:
    counts = transfer.ImportCounts()
    lines = [transfer.header_line([APP])]
    keys = [("u", session_id)]
    lines += [line async for line in transfer.export_lines(service, APP, keys, counts)]
    lines.append(transfer.footer_line(counts))
    return lines


async def _import(service: BaseSessionService, lines: list[str]) -> None:
    counts = transfer.ImportCounts()
    await transfer.import_lines(service, lambda: enumerate(lines, 1), counts)


def _session_line(lines: list[str]) -> dict[str, Any]:
    return next(json.loads(line) for line in lines if '"kind":"session"' in line)


def _with_session_line(lines: list[str], obj: dict[str, Any]) -> list[str]:
    return [json.dumps(obj) if '"kind":"session"' in line else line for line in lines]


async def test_an_imported_session_rewinds_and_forks_from_its_creation_state(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u", session_id="s", state={"c": 1})
    turn = await _turn(session_service, "s", {"c": 2})
    lines = await _export(session_service, "s")
    assert _session_line(lines)["creation_state"] == {"c": 1}
    await session_service.delete_session(app_name=APP, user_id="u", session_id="s")
    await _import(session_service, lines)
    session = await session_service.get_session(app_name=APP, user_id="u", session_id="s")
    assert session is not None
    await _fork(session_service, "s", "f", session.events[0].id)  # the user's message
    assert await _state(session_service, "f") == {"c": 1}
    await _rewind(session_service, "s", turn)
    assert await _state(session_service, "s") == {"c": 1}
    again = await _export(session_service, "s")  # and it exports it again
    assert _session_line(again)["creation_state"] == {"c": 1}


async def test_an_older_export_without_a_creation_state_imports_as_unknown(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u", session_id="s", state={"c": 1})
    await _turn(session_service, "s", {"c": 2, "x": 1})
    lines = await _export(session_service, "s")
    old = _session_line(lines)
    del old["creation_state"]
    await session_service.delete_session(app_name=APP, user_id="u", session_id="s")
    await _import(session_service, _with_session_line(lines, old))
    session = await session_service.get_session(app_name=APP, user_id="u", session_id="s")
    assert session is not None
    assert session.state == {"c": 2, "x": 1}
    # Unknown: the older rule (a creation key a later event changed is not known then).
    await _fork(session_service, "s", "f", session.events[0].id)
    assert await _state(session_service, "f") == {}
    assert "creation_state" not in _session_line(await _export(session_service, "s"))
    assert "creation_state" not in _session_line(await _export(session_service, "f"))


@pytest.mark.parametrize(
    ("creation", "message"),
    [
        ({"app:k": 1}, "field 'creation_state' holds a key starting with 'app:'"),
        ({"temp:k": 1}, "field 'creation_state' holds a key starting with 'temp:'"),
        ([1], "field 'creation_state' must be an object"),
        ({"k": {"$bytes": 5}}, "field 'creation_state' holds a value in no known encoding"),
    ],
)
async def test_an_import_refuses_a_bad_creation_state_and_writes_nothing(
    session_service: BaseSessionService, creation: Any, message: str
) -> None:
    await session_service.create_session(app_name=APP, user_id="u", session_id="s", state={"c": 1})
    lines = await _export(session_service, "s")
    await session_service.delete_session(app_name=APP, user_id="u", session_id="s")
    bad = _with_session_line(lines, {**_session_line(lines), "creation_state": creation})
    with pytest.raises(InputValidationError, match=message):
        await _import(session_service, bad)
    assert await session_service.get_session(app_name=APP, user_id="u", session_id="s") is None


async def test_a_session_created_with_events_starts_from_the_given_state(
    session_service: BaseSessionService,
) -> None:
    history = [text_event("earlier", role="user"), text_event("answer")]
    await create_with_events(
        session_service,
        app_name=APP,
        user_id="u",
        state={"c": 1, "user:u": 1},
        session_id="s",
        events=history,
    )
    turn = await _turn(session_service, "s", {"c": 2})
    await _fork(session_service, "s", "f", history[1].id)
    assert await _state(session_service, "f") == {"c": 1}
    await _rewind(session_service, "s", turn)
    assert await _state(session_service, "s") == {"c": 1}
