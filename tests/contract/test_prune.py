"""Retention (``prune_sessions``): idle sessions go, live ones stay, on every backend.

Idle means "last written longer ago than the threshold". The tests make a few sessions old by
waiting past a short threshold (about a second), then write to some of them again; those
must survive. Pruning is batched (the walk must cross batch boundaries), keeps sessions a turn
holds, keeps app and user state, and with ``dry_run`` deletes nothing.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import timedelta

import pytest

from adk_runtime.errors import InputValidationError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, Session

IDLE = 1.0
"""The threshold of these tests, in seconds: sessions older than this are idle."""


def _app() -> str:
    return f"prune-{uuid.uuid4().hex[:8]}"


async def _make(service: BaseSessionService, app: str, user: str, sid: str) -> Session:
    session = await service.create_session(
        app_name=app, user_id=user, session_id=sid, state={"user:name": user, "app:v": 1}
    )
    await service.append_event(
        session, Event(author="x", actions=EventActions(state_delta={"n": 1}))
    )
    return session


async def _touch(service: BaseSessionService, app: str, user: str, sid: str) -> None:
    session = await service.get_session(app_name=app, user_id=user, session_id=sid)
    assert session is not None
    await service.append_event(
        session, Event(author="x", actions=EventActions(state_delta={"n": 2}))
    )


async def _ids(service: BaseSessionService, app: str) -> set[tuple[str, str]]:
    listed = await service.list_sessions(app_name=app)
    return {(s.user_id, s.id) for s in listed.sessions}


async def _aged(service: BaseSessionService, app: str, keys: list[tuple[str, str]]) -> None:
    for user, sid in keys:
        await _make(service, app, user, sid)
    await asyncio.sleep(IDLE + 0.5)


async def test_idle_sessions_go_and_live_ones_stay(session_service: BaseSessionService) -> None:
    app = _app()
    old = [(f"u{i % 3}", f"s{i}") for i in range(7)]
    await _aged(session_service, app, old)
    await _touch(session_service, app, "u1", "s1")  # written again: not idle
    await _make(session_service, app, "u9", "fresh")  # new: not idle

    result = await session_service.prune_sessions(app_name=app, idle_longer_than=IDLE, batch_size=2)

    pruned = [(s.user_id, s.session_id) for s in result.sessions]
    assert sorted(pruned) == sorted(k for k in old if k != ("u1", "s1"))
    assert not result.dry_run
    times = [s.last_update_time for s in result.sessions]
    assert times == sorted(times)  # oldest first
    assert await _ids(session_service, app) == {("u1", "s1"), ("u9", "fresh")}
    for user, sid in pruned:
        assert await session_service.get_session(app_name=app, user_id=user, session_id=sid) is None
    # App and user state stay.
    kept = await session_service.get_session(app_name=app, user_id="u1", session_id="s1")
    assert kept is not None
    assert kept.state["app:v"] == 1
    assert kept.state["user:name"] == "u1"
    again = await session_service.create_session(app_name=app, user_id="u0", session_id="new")
    assert again.state["user:name"] == "u0"


async def test_dry_run_lists_and_deletes_nothing(session_service: BaseSessionService) -> None:
    app = _app()
    old = [("u", f"s{i}") for i in range(5)]
    await _aged(session_service, app, old)

    result = await session_service.prune_sessions(
        app_name=app, idle_longer_than=timedelta(seconds=IDLE), dry_run=True, batch_size=2
    )

    assert result.dry_run
    assert sorted((s.user_id, s.session_id) for s in result.sessions) == sorted(old)
    assert await _ids(session_service, app) == set(old)


async def test_one_user_only(session_service: BaseSessionService) -> None:
    app = _app()
    await _aged(session_service, app, [("a", "s1"), ("a", "s2"), ("b", "s1")])

    result = await session_service.prune_sessions(
        app_name=app, user_id="a", idle_longer_than=IDLE, batch_size=1
    )

    assert sorted((s.user_id, s.session_id) for s in result.sessions) == [("a", "s1"), ("a", "s2")]
    assert await _ids(session_service, app) == {("b", "s1")}


async def test_a_session_a_turn_holds_is_kept(session_service: BaseSessionService) -> None:
    app = _app()
    await _aged(session_service, app, [("u", "busy"), ("u", "idle")])
    async with session_service.claim_session(
        app_name=app, user_id="u", session_id="busy", wait_seconds=0, lease_seconds=30
    ):
        result = await session_service.prune_sessions(app_name=app, idle_longer_than=IDLE)
    assert [(s.user_id, s.session_id) for s in result.sessions] == [("u", "idle")]
    assert await _ids(session_service, app) == {("u", "busy")}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"idle_longer_than": 0}, "positive"),
        ({"idle_longer_than": -5}, "positive"),
        ({"idle_longer_than": float("inf")}, "positive"),
        ({"idle_longer_than": float("nan")}, "positive"),
        ({"idle_longer_than": timedelta.min}, "positive"),
        ({"idle_longer_than": "30d"}, "seconds or a timedelta"),
        ({"idle_longer_than": 60, "batch_size": 0}, "batch_size"),
        ({"idle_longer_than": 60, "user_id": "bad\x00id"}, "user_id"),
    ],
)
async def test_bad_arguments_are_refused(
    session_service: BaseSessionService, kwargs: dict[str, object], message: str
) -> None:
    app = _app()
    await session_service.create_session(app_name=app, user_id="u", session_id="s")
    with pytest.raises(InputValidationError, match=message):
        await session_service.prune_sessions(app_name=app, **kwargs)  # type: ignore[arg-type]
    assert await _ids(session_service, app) == {("u", "s")}


async def test_a_session_written_after_it_was_found_idle_is_kept(
    session_service: BaseSessionService,
) -> None:
    app = _app()
    await _aged(session_service, app, [("u", "back"), ("u", "gone")])
    found = await session_service.prune_sessions(app_name=app, idle_longer_than=IDLE, dry_run=True)
    assert len(found.sessions) == 2
    await _touch(session_service, app, "u", "back")  # the conversation comes back to life
    # The backend step deletes only what is still idle when it runs.
    before = time.time() - IDLE
    deleted = {
        s.session_id: await session_service._delete_if_idle(app, s, before) for s in found.sessions
    }
    assert deleted == {"back": False, "gone": True}
    assert await _ids(session_service, app) == {("u", "back")}


@pytest.mark.parametrize("idle", [1e12, 1e300, timedelta.max, timedelta(days=999_999_999)], ids=str)
async def test_an_idle_time_longer_than_any_session_has_lived_prunes_nothing(
    session_service: BaseSessionService, idle: float | timedelta
) -> None:
    # Issue 48 defect 9: SQL raised "year ... out of range" instead of finding nothing.
    app = _app()
    await _make(session_service, app, "u", "s")
    for dry_run in (True, False):
        result = await session_service.prune_sessions(
            app_name=app, idle_longer_than=idle, dry_run=dry_run
        )
        assert result.sessions == []
    assert await _ids(session_service, app) == {("u", "s")}
