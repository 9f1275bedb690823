"""Spanner's size limits: refused with a typed error, nothing written; large sessions read.

A value holds 10 MiB, a commit 100 MB and 80,000 mutations; a unary query's result 10 MiB
(the service streams every query). See ``adk_runtime/sessions/spanner/_limits.py``.
"""

from __future__ import annotations

import pytest
from google.genai import types

from adk_runtime.errors import InputValidationError, SerializationError
from adk_runtime.events import Event, EventActions
from adk_runtime.sessions._create_with_events import create_with_events
from adk_runtime.sessions.spanner import SpannerSessionService
from adk_runtime.sessions.spanner._limits import MAX_VALUE_BYTES

APP = "app"
MIB = 1024 * 1024


def _text(text: str, **delta: object) -> Event:
    content = types.Content(role="user", parts=[types.Part(text=text)])
    return Event(author="user", content=content, actions=EventActions(state_delta=dict(delta)))


async def _unchanged(service: SpannerSessionService, revision: int) -> None:
    stored = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert stored is not None
    assert stored.revision == revision == len(stored.events)


@pytest.mark.parametrize(
    "text",
    ["x" * (MAX_VALUE_BYTES + 1000), "é" * (6 * MIB)],  # 6 Mi characters: 12 MiB of UTF-8
    ids=["ascii", "two-byte-characters"],
)
async def test_an_event_over_a_cell_is_refused_before_anything_is_sent(
    service: SpannerSessionService, text: str
) -> None:
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    before = service.round_trips
    with pytest.raises(SerializationError, match="Spanner stores at most"):
        await service.append_event(session, _text(text))
    assert service.round_trips == before  # refused before anything was sent
    assert (session.revision, session.events) == (0, [])
    await _unchanged(service, 0)


async def test_a_state_over_a_cell_is_refused_and_nothing_is_written(
    service: SpannerSessionService,
) -> None:
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    await service.append_event(session, _text("a", a="x" * (4 * MIB)))
    await service.append_event(session, _text("b", b="x" * (4 * MIB)))
    with pytest.raises(SerializationError, match="state"):
        await service.append_event(session, _text("c", c="x" * (4 * MIB)))
    await _unchanged(service, 2)


async def test_a_create_with_too_many_events_is_refused_before_anything_is_sent(
    service: SpannerSessionService,
) -> None:
    await service.list_sessions(app_name=APP)
    before = service.round_trips
    many = [_text(f"{n}") for n in range(7_000)]  # over 80,000 mutations with the index
    with pytest.raises(InputValidationError, match="too large for one Spanner transaction"):
        await create_with_events(
            service, app_name=APP, user_id="u", state=None, session_id="s", events=many
        )
    large = [_text("x" * (9 * MIB)) for _ in range(11)]  # 99 MiB: over 100 MB
    with pytest.raises(InputValidationError, match="too large for one Spanner transaction"):
        await create_with_events(
            service, app_name=APP, user_id="u", state=None, session_id="s", events=large
        )
    assert service.round_trips == before
    assert await service.get_session(app_name=APP, user_id="u", session_id="s") is None


async def test_a_session_over_the_unary_limits_reads_whole_and_forks_only_in_part(
    service: SpannerSessionService,
) -> None:
    # 10 events of 9.5 MiB: 95 MiB, past a unary ExecuteSql result (10 MiB) and past what
    # one commit can copy (100 MB).
    session = await service.create_session(app_name=APP, user_id="u", session_id="s")
    texts = [str(n) * int(9.5 * MIB) for n in range(10)]
    for text in texts:
        await service.append_event(session, _text(text))
    before = service.round_trips
    stored = await service.get_session(app_name=APP, user_id="u", session_id="s")
    assert service.round_trips == before + 1  # one streamed query
    assert stored is not None
    read = [e.content.parts[0].text for e in stored.events if e.content and e.content.parts]
    assert read == texts
    with pytest.raises(InputValidationError, match="too large for one Spanner transaction"):
        await service.fork_session(app_name=APP, user_id="u", session_id="s", new_session_id="f")
    assert await service.get_session(app_name=APP, user_id="u", session_id="f") is None
    at = stored.events[4].id  # five events: 47.5 MiB, one commit
    forked = await service.fork_session(
        app_name=APP, user_id="u", session_id="s", new_session_id="f", at_event_id=at
    )
    assert forked.revision == 5
    copy = await service.get_session(app_name=APP, user_id="u", session_id="f")
    assert copy is not None
    assert [e.id for e in copy.events] == [e.id for e in stored.events[:5]]
