"""One turn at a time per session, across Runners on one store; idempotent messages.

Two Runners on two service objects of one store stand for two replicas.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import InvocationContext
from adk_runtime.errors import (
    EventIdConflictError,
    InputValidationError,
    SessionBusyError,
    StaleSessionError,
)
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, Session
from adk_runtime.testing import ScriptedAgent, text_event
from tests.backends import twin

APP = "turns"


def _message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _text(event: Event) -> str:
    assert event.content is not None
    assert event.content.parts
    return event.content.parts[0].text or ""


async def _stored(service: BaseSessionService, sid: str = "s1") -> Session:
    session = await service.get_session(app_name=APP, user_id="u1", session_id=sid)
    assert session is not None
    return session


def _slow_agent(
    calls: list[str],
    seconds: float,
    *,
    started: asyncio.Event | None = None,
    release: asyncio.Event | None = None,
) -> ScriptedAgent:
    """Answers ``answer N``; with events, says when its turn holds the session and waits."""

    async def slow(ctx: InvocationContext) -> Event:
        calls.append(_text(ctx.session.events[-1]))
        if started is not None:
            started.set()
        if release is not None:
            await release.wait()
        await asyncio.sleep(seconds)
        return text_event(f"answer {len(calls)}")

    return ScriptedAgent(name="bot", script=[slow])


def _runner(service: BaseSessionService, agent: ScriptedAgent, **kwargs: Any) -> Runner:
    return Runner(app_name=APP, agent=agent, session_service=service, **kwargs)


async def _run(runner: Runner, text: str, **kwargs: Any) -> list[Event]:
    return [
        e
        async for e in runner.run_async(
            user_id="u1", session_id="s1", new_message=_message(text), **kwargs
        )
    ]


async def test_a_message_to_a_busy_session_waits_then_runs(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    calls: list[str] = []
    started, release = asyncio.Event(), asyncio.Event()
    async with twin(session_service) as other:
        first = _runner(session_service, _slow_agent(calls, 0, started=started, release=release))
        second = _runner(other, _slow_agent(calls, 0.0), session_wait_seconds=30)

        async def later() -> list[Event]:
            await started.wait()  # the first turn holds the session
            waiting = asyncio.ensure_future(_run(second, "two"))
            await asyncio.sleep(0.2)
            release.set()
            return await waiting

        one, two = await asyncio.gather(_run(first, "one"), later())
    assert [_text(e) for e in one] == ["answer 1"]
    assert [_text(e) for e in two] == ["answer 2"]
    stored = await _stored(session_service)
    # Never interleaved: each user message is followed by its own answer.
    assert [_text(e) for e in stored.events] == ["one", "answer 1", "two", "answer 2"]
    assert calls == ["one", "two"]


async def test_a_message_refused_as_busy_stores_nothing(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    calls: list[str] = []
    started, release = asyncio.Event(), asyncio.Event()
    async with twin(session_service) as other:
        first = _runner(session_service, _slow_agent(calls, 0, started=started, release=release))
        impatient = _runner(other, _slow_agent(calls, 0.0), session_wait_seconds=0.1)

        async def later() -> BaseException | None:
            await started.wait()  # the first turn holds the session until released
            try:
                await _run(impatient, "orphan?", state_delta={"orphan": True})
            except SessionBusyError as error:
                return error
            finally:
                release.set()
            return None

        _, refused = await asyncio.gather(_run(first, "one"), later())
    assert isinstance(refused, SessionBusyError)
    assert refused.retry_after > 0
    stored = await _stored(session_service)
    assert [_text(e) for e in stored.events] == ["one", "answer 1"]
    assert "orphan" not in stored.state
    assert calls == ["one"]


async def test_the_same_message_sent_twice_is_stored_and_answered_once(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    calls: list[str] = []
    started, release = asyncio.Event(), asyncio.Event()
    async with twin(session_service) as other:
        first = _runner(session_service, _slow_agent(calls, 0, started=started, release=release))
        retry = _runner(other, _slow_agent(calls, 0.0), session_wait_seconds=30)

        async def resend() -> list[Event]:
            await started.wait()  # the client retries while the first attempt still runs
            resent = asyncio.ensure_future(
                _run(retry, "hi", idempotency_key="msg-1", state_delta={"n": 1})
            )
            await asyncio.sleep(0.2)
            release.set()
            return await resent

        one, two = await asyncio.gather(
            _run(first, "hi", idempotency_key="msg-1", state_delta={"n": 1}), resend()
        )
    assert calls == ["hi"]
    assert [e.id for e in two] == [e.id for e in one]
    assert [_text(e) for e in two] == ["answer 1"]
    stored = await _stored(session_service)
    assert [_text(e) for e in stored.events] == ["hi", "answer 1"]
    assert stored.events[0].id == "msg-1"
    # Long after, the same key still answers from storage, and a new key runs a new turn.
    again = await _run(first, "hi", idempotency_key="msg-1", state_delta={"n": 1})
    assert [_text(e) for e in again] == ["answer 1"]
    await _run(first, "next", idempotency_key="msg-2")
    assert [_text(e) for e in (await _stored(session_service)).events] == [
        "hi",
        "answer 1",
        "next",
        "answer 2",
    ]


@pytest.mark.parametrize(
    ("text", "delta"), [("other words", {"n": 1}), ("hi", {"n": 2}), ("hi", None)]
)
async def test_a_key_used_again_for_another_message_is_refused(
    session_service: BaseSessionService, text: str, delta: dict[str, Any] | None
) -> None:
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    calls: list[str] = []
    runner = _runner(session_service, _slow_agent(calls, 0.0))
    await _run(runner, "hi", idempotency_key="msg-1", state_delta={"n": 1})
    with pytest.raises(EventIdConflictError) as info:
        await _run(runner, text, idempotency_key="msg-1", state_delta=delta)
    assert info.value.event_id == "msg-1"
    assert calls == ["hi"]  # the agent did not run for it
    stored = await _stored(session_service)
    assert [_text(e) for e in stored.events] == ["hi", "answer 1"]
    assert stored.state == {"n": 1}
    # The session is free again: the next message runs.
    await _run(runner, "next", idempotency_key="msg-2")
    assert calls == ["hi", "next"]


async def test_a_malformed_idempotency_key_is_refused_before_anything_is_written(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    runner = _runner(session_service, _slow_agent([], 0.0))
    for bad in ("", "x" * 129, "a\nb"):
        with pytest.raises(InputValidationError):
            await _run(runner, "hi", idempotency_key=bad)
    assert (await _stored(session_service)).events == []


async def test_auto_create_races_between_replicas_create_once(
    session_service: BaseSessionService,
) -> None:
    calls: list[str] = []
    async with twin(session_service) as other:
        runners = [
            _runner(service, _slow_agent(calls, 0.05), auto_create_session=True)
            for service in (session_service, other)
        ]
        await asyncio.gather(_run(runners[0], "a"), _run(runners[1], "b"))
    stored = await _stored(session_service)
    assert sorted(_text(e) for e in stored.events if e.author == "user") == ["a", "b"]
    assert len(stored.events) == 4


async def test_a_retry_finishes_a_turn_that_died_after_storing_the_message(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    calls: list[str] = []

    async def crash(ctx: InvocationContext) -> Event:
        raise RuntimeError("the process died here")

    dying = _runner(session_service, ScriptedAgent(name="bot", script=[crash]))
    with pytest.raises(RuntimeError):
        await _run(dying, "hi", idempotency_key="msg-1")
    stored = await _stored(session_service)
    assert [_text(e) for e in stored.events] == ["hi"]  # the message, no answer
    retry = _runner(session_service, _slow_agent(calls, 0.0))
    answer = await _run(retry, "hi", idempotency_key="msg-1")
    assert [_text(e) for e in answer] == ["answer 1"]
    assert answer[0].invocation_id == stored.events[0].invocation_id
    assert calls == ["hi"]
    again = await _run(retry, "hi", idempotency_key="msg-1")
    assert [e.id for e in again] == [e.id for e in answer]
    assert [_text(e) for e in (await _stored(session_service)).events] == ["hi", "answer 1"]


async def test_a_turn_of_a_deleted_incarnation_never_frees_the_new_sessions_turn(
    session_service: BaseSessionService,
) -> None:
    # Issue 48 defect 1: T1 holds s1; s1 is deleted and created again; T2 claims the new s1;
    # T1 then fails on the vanished session and releases. T2 is unaffected and answers; a
    # third message waits for T2.
    await session_service.create_session(app_name=APP, user_id="u1", session_id="s1")
    old_calls: list[str] = []
    new_calls: list[str] = []
    t1_started, t1_release = asyncio.Event(), asyncio.Event()
    t2_started, t2_release = asyncio.Event(), asyncio.Event()
    async with twin(session_service) as other, twin(session_service) as third_store:
        t1 = _runner(
            session_service, _slow_agent(old_calls, 0, started=t1_started, release=t1_release)
        )
        t2 = _runner(
            other,
            _slow_agent(new_calls, 0, started=t2_started, release=t2_release),
            session_wait_seconds=30,
        )
        third = _runner(third_store, _slow_agent(new_calls, 0), session_wait_seconds=0.3)
        first = asyncio.ensure_future(_run(t1, "one"))
        await t1_started.wait()
        await other.delete_session(app_name=APP, user_id="u1", session_id="s1")
        await other.create_session(app_name=APP, user_id="u1", session_id="s1")
        second = asyncio.ensure_future(_run(t2, "two"))
        await t2_started.wait()
        t1_release.set()
        with pytest.raises(StaleSessionError, match="deleted and created again"):
            await first  # T1's answer finds its session gone; T1 releases its claim
        with pytest.raises(SessionBusyError):
            await _run(third, "three")  # T2 still holds the new session
        t2_release.set()
        answered = await second
    assert [_text(e) for e in answered] == ["answer 1"]
    stored = await _stored(session_service)
    assert [_text(e) for e in stored.events] == ["two", "answer 1"]
    assert new_calls == ["two"]
    interrupted = await session_service.list_interrupted_invocations(
        app_name=APP, user_id="u1", session_id="s1", include_running=True
    )
    assert interrupted == []
