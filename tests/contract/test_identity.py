"""Session identity (contract §4.10): an object of a deleted session never writes into a new one.

A session deleted and created again under the same id is another incarnation. An append from
an object loaded before the delete fails with StaleSessionError and writes nothing, even when
the revision numbers happen to match, on every backend.
"""

from __future__ import annotations

import uuid

import pytest

from adk_runtime.errors import StaleSessionError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService

APP = "identity"


def _event(text: str) -> Event:
    return Event(author="x", actions=EventActions(state_delta={"last": text}))


async def _get(service: BaseSessionService, session_id: str):  # type: ignore[no-untyped-def]
    return await service.get_session(app_name=APP, user_id="u", session_id=session_id)


@pytest.mark.parametrize("how", ["create", "get", "list"])
async def test_an_old_object_cannot_write_into_a_recreated_session(
    session_service: BaseSessionService, how: str
) -> None:
    sid = uuid.uuid4().hex
    created = await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    if how == "create":
        old = created
    elif how == "get":
        old = await _get(session_service, sid)
    else:
        listed = await session_service.list_sessions(app_name=APP, user_id="u")
        (old,) = [s for s in listed.sessions if s.id == sid]
    await session_service.delete_session(app_name=APP, user_id="u", session_id=sid)
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    # Same id, same revision (0) as the old object: only the identity tells them apart.
    with pytest.raises(StaleSessionError, match="deleted and created again"):
        await session_service.append_event(old, _event("from the old object"))
    new = await _get(session_service, sid)
    assert new.revision == 0
    assert new.events == []
    assert "last" not in new.state


async def test_the_new_incarnation_accepts_its_own_writers(
    session_service: BaseSessionService,
) -> None:
    sid = uuid.uuid4().hex
    first = await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    await session_service.append_event(first, _event("one"))
    await session_service.delete_session(app_name=APP, user_id="u", session_id=sid)
    second = await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    await session_service.append_event(second, _event("two"))
    reloaded = await _get(session_service, sid)
    await session_service.append_event(reloaded, _event("three"))
    final = await _get(session_service, sid)
    assert final.revision == 2
    assert final.state["last"] == "three"


async def test_a_session_built_by_hand_is_not_checked(session_service: BaseSessionService) -> None:
    from adk_runtime.sessions import Session

    sid = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    by_hand = Session(id=sid, app_name=APP, user_id="u")
    await session_service.append_event(by_hand, _event("ok"))
    assert (await _get(session_service, sid)).revision == 1
