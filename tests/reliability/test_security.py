"""Security: hostile ids and payloads are refused or stored literally, never executed.

Nothing escapes its scope (one user's id never reaches another user's session or state;
artifacts: ``test_security_artifacts.py``), and no password or event payload reaches a log
line or an error message.
"""

from __future__ import annotations

import logging
import uuid

import pytest
from google.genai import types

from adk_runtime.errors import (
    AdkRuntimeError,
    InputValidationError,
    SerializationError,
    SessionNotFoundError,
    StaleSessionError,
)
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions import BaseSessionService, Session, session_service_from_url
from tests.stores import durable_backends

HOSTILE_IDS = [
    "..",
    "../../etc/passwd",
    "a/b",
    "/abs",
    "\\windows\\path",
    "'; DROP TABLE sessions; --",
    '" OR 1=1 --',
    "x' UNION SELECT * FROM app_states --",
    "]]) redis.call('FLUSHALL') --",
    "\"); return redis.call('KEYS', '*') --",
    "*",
    "?",
    "[a-z]",
    "{tag}",
    "app:x",
    "user:x",
    "%",
    "_",
    "$bytes",
    "🦀 astral \U0010fffd",
    " leading and trailing ",
]
CONTROL_IDS = ["a\x00b", "a\nb", "a\rb", "\x1b[31m", "tab\there", "del\x7f", "c1\x85", "\ud800"]
MARKER = "PAYLOAD-MARKER-7f3a9c"
PASSWORD = "pw-SECRET-91b2"
LOGGERS = ["adk_runtime", "sqlalchemy", "asyncpg", "aiosqlite", "redis", "alembic"]


def _app() -> str:
    return f"sec-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize("hostile", HOSTILE_IDS)
async def test_hostile_ids_are_stored_literally(
    session_service: BaseSessionService, hostile: str
) -> None:
    app = _app()
    bystander = await session_service.create_session(
        app_name=app, user_id="bystander", session_id="b", state={"user:k": "bystander"}
    )
    created = await session_service.create_session(
        app_name=app, user_id=hostile, session_id=hostile, state={"h" + hostile: hostile}
    )
    await session_service.append_event(created, Event(id=hostile, author=hostile))
    loaded = await session_service.get_session(app_name=app, user_id=hostile, session_id=hostile)
    assert loaded is not None
    assert (loaded.user_id, loaded.id, loaded.state["h" + hostile]) == (hostile, hostile, hostile)
    assert [e.id for e in loaded.events] == [hostile]
    # A pattern-looking id lists only itself, never other users' sessions.
    listed = await session_service.list_sessions(app_name=app, user_id=hostile)
    assert [(s.user_id, s.id) for s in listed.sessions] == [(hostile, hostile)]
    everyone = await session_service.list_sessions(app_name=app)
    assert {(s.user_id, s.id) for s in everyone.sessions} == {
        ("bystander", "b"),
        (hostile, hostile),
    }
    # Nothing was executed: the bystander is intact, and a pattern never matches it.
    assert await session_service.get_session(app_name=app, user_id=hostile, session_id="b") is None
    again = await session_service.get_session(app_name=app, user_id="bystander", session_id="b")
    assert again is not None
    assert again.state == bystander.state
    await session_service.delete_session(app_name=app, user_id=hostile, session_id=hostile)
    assert await session_service.get_session(app_name=app, user_id="bystander", session_id="b")


@pytest.mark.parametrize("bad", CONTROL_IDS)
async def test_control_characters_in_ids_are_refused(
    session_service: BaseSessionService, bad: str
) -> None:
    app = _app()
    for key in ({"user_id": bad, "session_id": "s"}, {"user_id": "u", "session_id": bad}):
        with pytest.raises(InputValidationError) as raised:
            await session_service.create_session(app_name=app, **key)
        assert bad not in str(raised.value)
    with pytest.raises(InputValidationError):
        await session_service.get_session(app_name=app, user_id=bad, session_id="s")
    with pytest.raises(InputValidationError):
        await session_service.list_sessions(app_name=bad)
    assert (await session_service.list_sessions(app_name=app)).sessions == []


async def test_oversized_payload_is_stored_literally(session_service: BaseSessionService) -> None:
    app = _app()
    big = "x" * 2_000_000 + "🦀"
    session = await session_service.create_session(app_name=app, user_id="u", state={"big": big})
    await session_service.append_event(
        session,
        Event(
            author="a",
            content=types.Content(role="model", parts=[types.Part(text=big)]),
            actions=EventActions(state_delta={"user:big": big}),
        ),
    )
    loaded = await session_service.get_session(app_name=app, user_id="u", session_id=session.id)
    assert loaded is not None
    assert loaded.state["big"] == big
    assert loaded.state["user:big"] == big
    assert loaded.events[0].content is not None
    assert loaded.events[0].content.parts
    assert loaded.events[0].content.parts[0].text == big


async def test_one_user_never_reaches_another(session_service: BaseSessionService) -> None:
    app = _app()
    alice = await session_service.create_session(
        app_name=app, user_id="alice", session_id="shared", state={"secret": 1, "user:s": "a"}
    )
    bob = await session_service.create_session(app_name=app, user_id="bob", session_id="other")
    assert "user:s" not in bob.state
    assert (
        await session_service.get_session(app_name=app, user_id="bob", session_id="shared") is None
    )
    # A session object forged with bob's user id but alice's session id writes nothing.
    forged = Session(id="shared", app_name=app, user_id="bob", revision=0)
    with pytest.raises(SessionNotFoundError):
        await session_service.append_event(
            forged, Event(author="x", actions=EventActions(state_delta={"secret": 2}))
        )
    await session_service.delete_session(app_name=app, user_id="bob", session_id="shared")
    kept = await session_service.get_session(app_name=app, user_id="alice", session_id="shared")
    assert kept is not None
    assert (kept.revision, kept.state) == (alice.revision, alice.state)
    listed = await session_service.list_sessions(app_name=app, user_id="bob")
    assert [s.id for s in listed.sessions] == ["other"]
    assert listed.sessions[0].state == {}


async def test_payloads_never_reach_logs_or_errors(
    session_service: BaseSessionService, caplog: pytest.LogCaptureFixture
) -> None:
    app = _app()
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    session = await session_service.create_session(
        app_name=app, user_id="u", state={"k": MARKER, "user:k": MARKER}
    )
    stale = session.model_copy(deep=True)
    await session_service.append_event(session, _marked_event())
    errors: list[Exception] = []
    with pytest.raises(StaleSessionError) as stale_error:
        await session_service.append_event(stale, _marked_event())
    errors.append(stale_error.value)
    with pytest.raises(SerializationError) as bad_value:
        await session_service.append_event(
            session, Event(author="a", actions=EventActions(state_delta={"k": MARKER + "\x00"}))
        )
    errors.append(bad_value.value)
    gone = Session(id="gone", app_name=app, user_id="u")
    with pytest.raises(SessionNotFoundError) as missing:
        await session_service.append_event(gone, _marked_event())
    errors.append(missing.value)
    for error in errors:
        assert MARKER not in str(error)
        assert MARKER not in repr(error.args)
    assert MARKER not in caplog.text


def _marked_event() -> Event:
    return Event(
        author="a",
        content=types.Content(role="model", parts=[types.Part(text=MARKER)]),
        actions=EventActions(state_delta={"k": MARKER, "app:k": MARKER}),
    )


# SQLite has no password; the server backends are given one and an unreachable port.
_UNREACHABLE_URLS = {
    "postgres": f"postgresql+asyncpg://someone:{PASSWORD}@127.0.0.1:1/db",
    "redis": f"redis://someone:{PASSWORD}@127.0.0.1:1/0",
}


@pytest.mark.parametrize("backend", [b for b in durable_backends() if b in _UNREACHABLE_URLS])
async def test_passwords_never_reach_logs_or_errors(
    backend: str, caplog: pytest.LogCaptureFixture
) -> None:
    for name in LOGGERS:
        caplog.set_level(logging.DEBUG, logger=name)
    url = _UNREACHABLE_URLS[backend]
    service = session_service_from_url(url)
    try:
        with pytest.raises(AdkRuntimeError) as raised:
            await service.create_session(app_name="a", user_id="u", session_id="s")
    finally:
        await service.close()
    text = f"{raised.value} {raised.value!r} {raised.value.__cause__!r}"
    assert PASSWORD not in text
    assert PASSWORD not in caplog.text
