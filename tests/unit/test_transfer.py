"""Export/import of sessions (JSONL): from a source store into every backend, exactly."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import pytest

from adk_runtime.errors import AlreadyExistsError, InputValidationError
from adk_runtime.sessions import BaseSessionService, InMemorySessionService, transfer
from adk_runtime.testing import text_event

APP = "transfer_app"


async def _fill(source: BaseSessionService) -> None:
    for user, sid, n in [
        ("alice", "s1", 3),
        ("alice", "s2", 1),
        ("bob", "s1", 2),
        ("bob", "empty", 0),
    ]:
        session = await source.create_session(
            app_name=APP, user_id=user, session_id=sid, state={"initial": sid}
        )
        for i in range(n):
            delta: dict[str, Any] = {
                "count": i,
                f"user:last_{sid}": i,
                "app:last": f"{user}/{sid}/{i}",
            }
            if i == 0:
                delta["blob"] = b"\x00\xffbytes"
                delta["when"] = datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
            await source.append_event(session, text_event(f"{user} {sid} {i}", state_delta=delta))
    # state written after the events by another session: the final app value must win
    other = await source.create_session(app_name=APP, user_id="carol", session_id="late")
    await source.append_event(other, text_event("late", state_delta={"app:last": "final"}))


async def _export(source: BaseSessionService) -> list[str]:
    keys = await transfer.list_session_keys(source, APP)
    lines = [transfer.header_line([APP])]
    counts = transfer.ImportCounts()
    async for line in transfer.export_lines(source, APP, keys, counts):
        lines.append(line)
    lines.append(transfer.footer_line(counts))
    return lines


async def _import(target: BaseSessionService, lines: list[str]) -> transfer.ImportCounts:
    counts = transfer.ImportCounts()
    await transfer.import_lines(target, lambda: enumerate(lines, 1), counts)
    return counts


async def _snapshot(service: BaseSessionService) -> list[dict[str, Any]]:
    out = []
    for user, sid in sorted(await transfer.list_session_keys(service, APP)):
        session = await service.get_session(app_name=APP, user_id=user, session_id=sid)
        assert session is not None
        out.append(
            {
                "key": (user, sid),
                "state": session.state,
                "revision": session.revision,
                "events": [e.model_dump(exclude={"actions"}) for e in session.events],
                "deltas": [e.actions.state_delta for e in session.events],
            }
        )
    return out


async def test_export_then_import_reproduces_every_session(
    session_service: BaseSessionService,
) -> None:
    source = InMemorySessionService()
    await _fill(source)
    lines = await _export(source)
    footer = json.loads(lines[-1])
    assert footer == {"kind": "end", "sessions": 5, "events": 7, "app_states": 1, "user_states": 2}

    counts = await _import(session_service, lines)
    assert (counts.sessions_created, counts.events) == (5, 7)
    assert await _snapshot(session_service) == await _snapshot(source)
    bob = await session_service.get_session(app_name=APP, user_id="bob", session_id="s1")
    assert bob is not None
    assert bob.state["blob"] == b"\x00\xffbytes"
    assert bob.state["app:last"] == "final"
    assert bob.revision == 2

    again = await _import(session_service, lines)  # idempotent
    assert (again.sessions_created, again.sessions_skipped, again.events) == (0, 5, 0)
    assert await _snapshot(session_service) == await _snapshot(source)


async def test_a_target_holding_part_of_a_session_refuses_the_file_and_writes_nothing(
    session_service: BaseSessionService,
) -> None:
    source = InMemorySessionService()
    await _fill(source)
    lines = await _export(source)
    partial = await source.get_session(app_name=APP, user_id="alice", session_id="s1")
    assert partial is not None
    # the target holds the first event of alice/s1 only (an import interrupted by an older
    # version, which appended event by event): imports now write a session whole or not at all
    head = await session_service.create_session(
        app_name=APP, user_id="alice", session_id="s1", state={"initial": "s1"}
    )
    await session_service.append_event(head, partial.events[0].model_copy(deep=True))
    before = await _snapshot(session_service)
    for _ in range(2):
        with pytest.raises(AlreadyExistsError, match=r"Line \d+: session 's1' of user 'alice'"):
            await _import(session_service, lines)
        assert await _snapshot(session_service) == before


async def test_a_different_session_in_the_target_stops_the_import(
    session_service: BaseSessionService,
) -> None:
    source = InMemorySessionService()
    await _fill(source)
    lines = await _export(source)
    clash = await session_service.create_session(app_name=APP, user_id="alice", session_id="s1")
    await session_service.append_event(clash, text_event("something else"))
    with pytest.raises(AlreadyExistsError, match=r"nothing was imported\. Delete it there"):
        await _import(session_service, lines)


@pytest.mark.parametrize(
    ("first", "last", "message"),
    [
        ('{"format": "other"}', '{"kind": "end"}', "not an adk-runtime sessions export"),
        ('{"format": "adk-runtime-sessions", "version": 9}', '{"kind": "end"}', "version 9"),
        ('{"format": "adk-runtime-sessions", "version": 1, "apps": []}', "", "incomplete"),
        ("not json", '{"kind": "end"}', "not JSON"),
    ],
)
def test_bad_files_are_refused(first: str, last: str, message: str) -> None:
    with pytest.raises(InputValidationError, match=message):
        transfer.check_file(enumerate([first, last] if last else [first], 1))
