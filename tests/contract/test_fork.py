"""fork_session on every backend: a prefix of the events and the state as of then, atomically."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_runtime.artifacts import InMemoryArtifactService
from adk_runtime.errors import AlreadyExistsError, EventNotFoundError, SessionNotFoundError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, GetSessionConfig

APP = "forks"


def _event(author: str, delta: dict[str, object], timestamp: float) -> Event:
    return Event(author=author, actions=EventActions(state_delta=delta), timestamp=timestamp)


async def _source(service: BaseSessionService) -> list[Event]:
    session = await service.create_session(
        app_name=APP, user_id="u", session_id="src", state={"init": 1, "later": "created"}
    )
    events = [
        _event("user", {"a": 1, "app:x": 1}, 10.0),
        _event("bot", {"a": 2, "b": 1, "user:y": 1}, 20.0),
        _event("bot", {"a": 3, "c": 1, "later": "changed"}, 30.0),
    ]
    for event in events:
        await service.append_event(session, event)
    return events


async def test_fork_copies_every_event_and_the_state(session_service: BaseSessionService) -> None:
    events = await _source(session_service)
    fork = await session_service.fork_session(
        app_name=APP, user_id="u", session_id="src", new_session_id="copy"
    )
    assert fork.id == "copy"
    assert [e.id for e in fork.events] == [e.id for e in events]
    assert fork.revision == 3
    source = await session_service.get_session(app_name=APP, user_id="u", session_id="src")
    assert source is not None
    assert fork.state == source.state
    # Shared, not copied: app and user state belong to the app and the user.
    await session_service.append_event(fork, _event("bot", {"app:x": 9, "user:y": 9}, 40.0))
    again = await session_service.get_session(app_name=APP, user_id="u", session_id="src")
    assert again is not None
    assert (again.state["app:x"], again.state["user:y"], again.revision) == (9, 9, 3)


async def test_fork_at_an_event_holds_the_prefix_and_the_state_then(
    session_service: BaseSessionService,
) -> None:
    events = await _source(session_service)
    fork = await session_service.fork_session(
        app_name=APP, user_id="u", session_id="src", at_event_id=events[1].id
    )
    assert fork.id != "src"
    assert [e.id for e in fork.events] == [events[0].id, events[1].id]
    assert fork.revision == 2
    # a and b as of event 2; c only came later; init never changed; "later" was set at
    # creation and changed after the fork point: it has its creation value then.
    session_scope = {k: v for k, v in fork.state.items() if ":" not in k}
    assert session_scope == {"init": 1, "a": 2, "b": 1, "later": "created"}
    # The fork is a session like any other: windows, idempotent re-append, appends.
    recent = await session_service.get_session(
        app_name=APP, user_id="u", session_id=fork.id, config=GetSessionConfig(num_recent_events=1)
    )
    assert recent is not None
    assert [e.id for e in recent.events] == [events[1].id]
    after = await session_service.get_session(
        app_name=APP, user_id="u", session_id=fork.id, config=GetSessionConfig(after_timestamp=15)
    )
    assert after is not None
    assert [e.id for e in after.events] == [events[1].id]
    stored = await session_service.append_event(fork, events[1].model_copy())
    assert stored.id == events[1].id
    assert fork.revision == 2
    await session_service.append_event(fork, _event("bot", {"d": 1}, 50.0))
    assert fork.revision == 3
    source = await session_service.get_session(app_name=APP, user_id="u", session_id="src")
    assert source is not None
    assert source.revision == 3
    assert "d" not in source.state


async def test_fork_errors_write_nothing(session_service: BaseSessionService) -> None:
    events = await _source(session_service)
    await session_service.create_session(app_name=APP, user_id="u", session_id="taken")
    before = await session_service.list_sessions(app_name=APP)
    with pytest.raises(SessionNotFoundError):
        await session_service.fork_session(app_name=APP, user_id="u", session_id="missing")
    with pytest.raises(SessionNotFoundError):  # another user's id reaches nothing
        await session_service.fork_session(app_name=APP, user_id="v", session_id="src")
    with pytest.raises(AlreadyExistsError):
        await session_service.fork_session(
            app_name=APP, user_id="u", session_id="src", new_session_id="taken"
        )
    with pytest.raises(EventNotFoundError):
        await session_service.fork_session(
            app_name=APP, user_id="u", session_id="src", at_event_id="no-such-event"
        )
    after = await session_service.list_sessions(app_name=APP)
    assert sorted(s.id for s in after.sessions) == sorted(s.id for s in before.sessions)
    taken = await session_service.get_session(app_name=APP, user_id="u", session_id="taken")
    assert taken is not None
    assert (taken.revision, taken.events) == (0, [])
    assert len(events) == 3


async def test_a_fork_with_an_artifact_service_loads_every_artifact_its_history_names(
    session_service: BaseSessionService,
) -> None:
    artifacts = InMemoryArtifactService()
    session = await session_service.create_session(app_name=APP, user_id="u", session_id="src")
    key = {"app_name": APP, "user_id": "u", "session_id": "src"}
    for text in ("one", "two"):
        version = await artifacts.save_artifact(
            **key, filename="report.txt", artifact=types.Part(text=text)
        )
        await session_service.append_event(
            session,
            Event(author="bot", actions=EventActions(artifact_delta={"report.txt": version})),
        )

    fork = await session_service.fork_session(
        app_name=APP,
        user_id="u",
        session_id="src",
        new_session_id="copy",
        at_event_id=session.events[0].id,
        artifact_service=artifacts,
    )

    assert fork.events[-1].actions.artifact_delta == {"report.txt": 0}
    part = await artifacts.load_artifact(
        app_name=APP, user_id="u", session_id="copy", filename="report.txt", version=0
    )
    assert part is not None
    assert part.text == "one"
    latest = await artifacts.load_artifact(
        app_name=APP, user_id="u", session_id="copy", filename="report.txt"
    )
    assert latest is not None
    assert latest.text == "one"
