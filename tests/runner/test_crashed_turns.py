"""A turn whose process died after storing the user's message: the next turn finishes it.

The crash is made for real in the store: a claim is taken with a short lease, the user's
message is committed under it (what the Runner does first), and the claim is never released
(the process "died"). Once the lease has run out, the next message on the session, through a
Runner on any replica, answers the dead turn's message first (under its invocation id, not
yielded to the new caller), then its own: the conversation stays message/answer pairs, and a
retry of the dead turn's message gets its answer. A turn that failed with an *error* released
its claim: its message is not run again. On every backend.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator

import pytest
from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext
from adk_runtime.events import Event, EventActions
from adk_runtime.events.event_actions import EventCompaction
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from tests.backends import twin

APP = "crashes"
LEASE = 0.3


class Echo(BaseAgent):
    """Answers ``echo: <message>``; fails on ``boom``."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        text = ctx.user_content.parts[0].text if ctx.user_content and ctx.user_content.parts else ""
        if text == "boom":
            raise RuntimeError("the agent failed")
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.Content(role="model", parts=[types.Part(text=f"echo: {text}")]),
        )


def _message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _runner(service: BaseSessionService) -> Runner:
    return Runner(app_name=APP, agent=Echo(name="echo"), session_service=service)


async def _send(runner: Runner, sid: str, text: str, key: str | None = None) -> list[str]:
    said = []
    async for event in runner.run_async(
        user_id="u", session_id=sid, new_message=_message(text), idempotency_key=key
    ):
        said.append(event.content.parts[0].text if event.content and event.content.parts else "")
    return said


async def _log(service: BaseSessionService, sid: str) -> list[tuple[str, str]]:
    session = await service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    return [
        (e.author, e.content.parts[0].text if e.content and e.content.parts else "")
        for e in session.events
    ]


async def _crash_after_storing(service: BaseSessionService, sid: str, text: str) -> Event:
    """Do what a turn does before it dies: claim, commit the user's message; never release."""
    attempt = await service._try_claim((APP, "u", sid), LEASE)
    assert attempt.token is not None
    session = await service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    session._fence = attempt.token
    invocation = f"dead-{uuid.uuid4().hex[:6]}"
    message = Event(invocation_id=invocation, author="user", content=_message(text))
    return await service.append_event(session, message)


async def test_the_next_turn_finishes_a_crashed_turn_first(
    session_service: BaseSessionService,
) -> None:
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    assert await _send(_runner(session_service), sid, "first") == ["echo: first"]
    dead = await _crash_after_storing(session_service, sid, "lost?")
    await asyncio.sleep(LEASE + 0.2)  # the dead turn's lease runs out

    async with twin(session_service) as other_replica:
        said = await _send(_runner(other_replica), sid, "second")

    assert said == ["echo: second"]  # the new caller sees only its own turn
    assert await _log(session_service, sid) == [
        ("user", "first"),
        ("echo", "echo: first"),
        ("user", "lost?"),
        ("echo", "echo: lost?"),
        ("user", "second"),
        ("echo", "echo: second"),
    ]
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    assert session.events[3].invocation_id == dead.invocation_id
    # The dead turn's client retries with its message's id: it gets the answer, nothing is
    # stored again.
    assert await _send(_runner(session_service), sid, "lost?", key=dead.id) == ["echo: lost?"]
    assert len(await _log(session_service, sid)) == 6


async def test_a_turn_that_failed_with_an_error_is_not_run_again(
    session_service: BaseSessionService,
) -> None:
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    runner = _runner(session_service)
    with pytest.raises(RuntimeError, match="the agent failed"):
        await _send(runner, sid, "boom")
    assert await _send(runner, sid, "next") == ["echo: next"]
    assert await _log(session_service, sid) == [
        ("user", "boom"),
        ("user", "next"),
        ("echo", "echo: next"),
    ]


async def test_a_crash_after_the_answer_leaves_nothing_to_finish(
    session_service: BaseSessionService,
) -> None:
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    attempt = await session_service._try_claim((APP, "u", sid), LEASE)
    assert attempt.token is not None  # held, never released: the holder died after its turn
    await asyncio.sleep(LEASE + 0.2)
    assert await _send(_runner(session_service), sid, "hello") == ["echo: hello"]
    assert await _log(session_service, sid) == [("user", "hello"), ("echo", "echo: hello")]


async def test_a_crashed_turn_that_had_answered_is_not_answered_again(
    session_service: BaseSessionService,
) -> None:
    # The holder recorded its invocation, committed the message and the answer, and died
    # before releasing: the next turn resumes the open invocation, and a custom agent that
    # already answered in it is not run again.
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    attempt = await session_service._try_claim((APP, "u", sid), LEASE, "e-dead")
    assert attempt.token is not None
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    session._fence = attempt.token
    await session_service.append_event(
        session, Event(invocation_id="e-dead", author="user", content=_message("hi"))
    )
    answer = types.Content(role="model", parts=[types.Part(text="echo: hi")])
    await session_service.append_event(
        session, Event(invocation_id="e-dead", author="echo", content=answer)
    )
    await asyncio.sleep(LEASE + 0.2)
    assert await _send(_runner(session_service), sid, "again") == ["echo: again"]
    assert await _log(session_service, sid) == [
        ("user", "hi"),
        ("echo", "echo: hi"),
        ("user", "again"),
        ("echo", "echo: again"),
    ]
    assert await session_service.list_interrupted_invocations(app_name=APP) == []


async def test_a_crash_after_a_compaction_event_does_not_answer_the_summary(
    session_service: BaseSessionService,
) -> None:
    # The holder (with no invocation recorded) committed a turn and then the compaction event
    # that follows it (author "user", as google-adk writes them) and died: the summary is not
    # a message, so the next turn has nothing to finish.
    sid = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="u", session_id=sid)
    attempt = await session_service._try_claim((APP, "u", sid), LEASE)
    assert attempt.token is not None
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    session._fence = attempt.token
    hi = await session_service.append_event(
        session, Event(invocation_id="e-1", author="user", content=_message("hi"))
    )
    answer = types.Content(role="model", parts=[types.Part(text="echo: hi")])
    await session_service.append_event(
        session, Event(invocation_id="e-1", author="echo", content=answer)
    )
    summary = EventCompaction(
        start_timestamp=hi.timestamp,
        end_timestamp=hi.timestamp,
        compacted_content=types.Content(role="model", parts=[types.Part(text="greeted")]),
    )
    await session_service.append_event(
        session,
        Event(invocation_id="e-summary", author="user", actions=EventActions(compaction=summary)),
    )
    await asyncio.sleep(LEASE + 0.2)
    assert await _send(_runner(session_service), sid, "again") == ["echo: again"]
    assert await _log(session_service, sid) == [
        ("user", "hi"),
        ("echo", "echo: hi"),
        ("user", ""),
        ("user", "again"),
        ("echo", "echo: again"),
    ]
