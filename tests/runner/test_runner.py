"""The Runner's yield → commit → resume loop, on every backend."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import BaseAgent, CallbackContext, InvocationContext
from adk_runtime.errors import SessionNotFoundError, StaleSessionError
from adk_runtime.events import Event
from adk_runtime.runners import Runner, SessionBusyError
from adk_runtime.sessions import BaseSessionService, Session
from adk_runtime.testing import ScriptedAgent, text_event

APP = "app"


def _message(text: str = "hello") -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _text(event: Event) -> str | None:
    if event.content is None or not event.content.parts:
        return None
    return event.content.parts[0].text


async def _stored(service: BaseSessionService, session_id: str = "s1") -> Session:
    session = await service.get_session(app_name=APP, user_id="u1", session_id=session_id)
    assert session is not None
    return session


async def _new_runner(service: BaseSessionService, agent: BaseAgent, **kwargs: Any) -> Runner:
    await service.create_session(app_name=APP, user_id="u1", session_id="s1")
    return Runner(app_name=APP, agent=agent, session_service=service, **kwargs)


async def test_commit_before_resume(session_service: BaseSessionService) -> None:
    seen: list[tuple[int, Any, Any]] = []

    async def check(ctx: InvocationContext) -> Event:
        stored = await _stored(session_service)
        # The previous event is durable and its state is visible, in storage and in ctx.
        seen.append((len(stored.events), stored.state.get("step"), ctx.session.state.get("step")))
        return text_event("checked", state_delta={"step": len(seen) + 1})

    agent = ScriptedAgent(
        name="bot", script=[text_event("one", state_delta={"step": 1}), check, check]
    )
    runner = await _new_runner(session_service, agent)
    events = [
        e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())
    ]
    assert [_text(e) for e in events] == ["one", "checked", "checked"]
    # user event + "one" are stored when the first check runs; then + "checked".
    assert seen == [(2, 1, 1), (3, 2, 2)]
    stored = await _stored(session_service)
    assert [e.author for e in stored.events] == ["user", "bot", "bot", "bot"]
    assert stored.state == {"step": 3}


async def test_each_event_is_stored_before_the_caller_sees_it(
    session_service: BaseSessionService,
) -> None:
    agent = ScriptedAgent(name="bot", script=[text_event(str(i)) for i in range(3)])
    runner = await _new_runner(session_service, agent)
    async for event in runner.run_async(user_id="u1", session_id="s1", new_message=_message()):
        stored = await _stored(session_service)
        assert stored.events[-1].id == event.id


async def test_user_event_is_committed_with_state_delta_but_not_yielded(
    session_service: BaseSessionService,
) -> None:
    async def check(ctx: InvocationContext) -> Event:
        stored = await _stored(session_service)
        assert stored.events[0].author == "user"
        assert stored.state["user:lang"] == "fr"
        return text_event("ok")

    runner = await _new_runner(session_service, ScriptedAgent(name="bot", script=[check]))
    events = [
        e
        async for e in runner.run_async(
            user_id="u1",
            session_id="s1",
            new_message=_message("bonjour"),
            state_delta={"user:lang": "fr"},
        )
    ]
    assert [e.author for e in events] == ["bot"]
    stored = await _stored(session_service)
    assert _text(stored.events[0]) == "bonjour"
    assert stored.events[0].actions.state_delta == {"user:lang": "fr"}
    assert stored.events[0].invocation_id == stored.events[1].invocation_id
    assert stored.events[0].invocation_id.startswith("e-")


async def test_partial_events_are_yielded_but_not_stored(
    session_service: BaseSessionService,
) -> None:
    agent = ScriptedAgent(
        name="bot",
        script=[
            text_event("Hel", partial=True, state_delta={"leak": 1}),
            text_event("lo", partial=True),
            text_event("Hello"),
        ],
    )
    runner = await _new_runner(session_service, agent)
    events = [
        e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())
    ]
    assert [(e.partial, _text(e)) for e in events] == [(True, "Hel"), (True, "lo"), (None, "Hello")]
    stored = await _stored(session_service)
    assert [_text(e) for e in stored.events] == ["hello", "Hello"]
    assert "leak" not in stored.state


async def test_temp_state_lives_for_one_invocation(session_service: BaseSessionService) -> None:
    observed: list[Any] = []

    def read_temp(ctx: InvocationContext) -> Event:
        observed.append(ctx.session.state.get("temp:scratch"))
        return text_event("read")

    agent = ScriptedAgent(
        name="bot",
        script=[text_event("write", state_delta={"temp:scratch": "x", "kept": 1}), read_temp],
    )
    runner = await _new_runner(session_service, agent)
    events = [
        e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())
    ]
    assert observed == ["x"]
    assert all("temp:scratch" not in e.actions.state_delta for e in events)
    stored = await _stored(session_service)
    assert stored.state == {"kept": 1}
    assert all("temp:scratch" not in e.actions.state_delta for e in stored.events)
    _ = [e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())]
    assert observed == ["x", "x"]  # written again by the second run, never read from storage


async def test_temp_keys_are_stripped_from_partial_events(
    session_service: BaseSessionService,
) -> None:
    agent = ScriptedAgent(
        name="bot", script=[text_event("p", partial=True, state_delta={"temp:t": 1, "k": 2})]
    )
    runner = await _new_runner(session_service, agent)
    events = [
        e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())
    ]
    assert events[0].actions.state_delta == {"k": 2}


async def test_failure_mid_run_keeps_committed_events_and_drops_the_failed_step(
    session_service: BaseSessionService,
) -> None:
    def fail(ctx: InvocationContext) -> Event:
        ctx.session.state["dirty"] = "never stored"
        raise RuntimeError("tool exploded")

    agent = ScriptedAgent(
        name="bot", script=[text_event("ok", state_delta={"good": 1}), fail, text_event("never")]
    )
    runner = await _new_runner(session_service, agent)
    received: list[Event] = []

    async def consume() -> None:
        async for event in runner.run_async(user_id="u1", session_id="s1", new_message=_message()):
            received.append(event)

    with pytest.raises(RuntimeError, match="tool exploded"):
        await consume()
    assert [_text(e) for e in received] == ["ok"]
    stored = await _stored(session_service)
    assert [_text(e) for e in stored.events] == ["hello", "ok"]
    assert stored.state == {"good": 1}
    # The session is usable afterwards.
    runner.agent = ScriptedAgent(name="bot", script=[text_event("again")])
    _ = [e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())]
    assert len((await _stored(session_service)).events) == 4


async def test_missing_session(session_service: BaseSessionService) -> None:
    runner = Runner(app_name=APP, agent=ScriptedAgent(name="bot"), session_service=session_service)
    with pytest.raises(SessionNotFoundError):
        async for _ in runner.run_async(user_id="u1", session_id="nope", new_message=_message()):
            pass
    assert await session_service.get_session(app_name=APP, user_id="u1", session_id="nope") is None


async def test_auto_create_session(session_service: BaseSessionService) -> None:
    runner = Runner(
        app_name=APP,
        agent=ScriptedAgent(name="bot", script=[text_event("hi")]),
        session_service=session_service,
        auto_create_session=True,
    )
    _ = [
        e async for e in runner.run_async(user_id="u1", session_id="fresh", new_message=_message())
    ]
    stored = await _stored(session_service, "fresh")
    assert [e.author for e in stored.events] == ["user", "bot"]


async def test_concurrent_invocations_never_interleave(session_service: BaseSessionService) -> None:
    gate = asyncio.Event()

    async def wait(ctx: InvocationContext) -> Event:
        await gate.wait()
        return text_event("slow done")

    runner = await _new_runner(
        session_service,
        ScriptedAgent(name="bot", script=[text_event("start"), wait]),
        session_wait_seconds=0.05,
    )
    first = runner.run_async(user_id="u1", session_id="s1", new_message=_message("first"))
    assert _text(await first.__anext__()) == "start"
    with pytest.raises(SessionBusyError) as info:
        async for _ in runner.run_async(
            user_id="u1", session_id="s1", new_message=_message("second")
        ):
            pass
    assert isinstance(info.value, StaleSessionError)
    gate.set()
    rest = [e async for e in first]
    assert [_text(e) for e in rest] == ["slow done"]
    stored = await _stored(session_service)
    assert [_text(e) for e in stored.events] == ["first", "start", "slow done"]
    # Once the first invocation finished, the session takes new invocations again.
    _ = [e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())]
    assert len((await _stored(session_service)).events) == 6


async def test_a_writer_outside_the_turn_is_refused_while_it_runs(
    session_service: BaseSessionService,
) -> None:
    refused: list[BaseException] = []

    async def intrude(ctx: InvocationContext) -> Event:
        other = await _stored(session_service)
        try:
            await session_service.append_event(other, text_event("intruder"))
        except SessionBusyError as error:
            refused.append(error)
        return text_event("wins")

    runner = await _new_runner(session_service, ScriptedAgent(name="bot", script=[intrude]))
    _ = [e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())]
    assert len(refused) == 1
    stored = await _stored(session_service)
    assert [_text(e) for e in stored.events] == ["hello", "wins"]


async def test_agent_callbacks_write_state_and_short_circuit(
    session_service: BaseSessionService,
) -> None:
    def before(callback_context: CallbackContext) -> types.Content | None:
        callback_context.state["before"] = threading.current_thread().name
        if callback_context.state.get("user:blocked"):
            return types.Content(role="model", parts=[types.Part(text="blocked")])
        return None

    async def after(callback_context: CallbackContext) -> types.Content | None:
        callback_context.state["after"] = True
        return None

    agent = ScriptedAgent(
        name="bot",
        script=[text_event("body")],
        before_agent_callback=before,
        after_agent_callback=after,
    )
    runner = await _new_runner(session_service, agent)
    events = [
        e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())
    ]
    assert [_text(e) for e in events] == [None, "body", None]
    assert events[0].actions.state_delta["before"] != threading.current_thread().name
    assert events[2].actions.state_delta == {"after": True}
    events = [
        e
        async for e in runner.run_async(
            user_id="u1",
            session_id="s1",
            new_message=_message(),
            state_delta={"user:blocked": True},
        )
    ]
    assert [_text(e) for e in events] == ["blocked"]
    stored = await _stored(session_service)
    assert _text(stored.events[-1]) == "blocked"
    assert stored.state["after"] is True


async def test_sync_callbacks_do_not_block_the_loop(
    session_service: BaseSessionService, blockbuster: Any
) -> None:
    import time

    def slow_sync_callback(callback_context: CallbackContext) -> None:
        time.sleep(0.01)  # runs in a worker thread; would fail blockbuster on the loop
        callback_context.state["slept"] = True

    agent = ScriptedAgent(
        name="bot", script=[text_event("x")], before_agent_callback=slow_sync_callback
    )
    runner = await _new_runner(session_service, agent)
    events = [
        e async for e in runner.run_async(user_id="u1", session_id="s1", new_message=_message())
    ]
    assert events[0].actions.state_delta == {"slept": True}


def test_run_is_a_sync_wrapper_that_reraises_and_cancels() -> None:
    from adk_runtime.runners import InMemoryRunner

    resumed: list[int] = []

    def step(ctx: InvocationContext) -> Event:
        resumed.append(len(resumed))
        return text_event(f"s{len(resumed)}")

    runner = InMemoryRunner(ScriptedAgent(name="bot", script=[step, step, step]), app_name=APP)
    asyncio.run(runner.session_service.create_session(app_name=APP, user_id="u1", session_id="s1"))
    events = list(runner.run(user_id="u1", session_id="s1", new_message=_message()))
    assert [_text(e) for e in events] == ["s1", "s2", "s3"]

    # Closing early cancels the run: the agent does not resume past what was consumed.
    resumed.clear()
    stream = runner.run(user_id="u1", session_id="s1", new_message=_message())
    assert _text(next(stream)) == "s1"
    stream.close()
    assert resumed == [0]
    stored = asyncio.run(
        runner.session_service.get_session(app_name=APP, user_id="u1", session_id="s1")
    )
    assert stored is not None
    assert [_text(e) for e in stored.events][-2:] == ["hello", "s1"]

    def boom(ctx: InvocationContext) -> Event:
        raise ValueError("bad step")

    runner.agent = ScriptedAgent(name="bot", script=[boom])
    with pytest.raises(ValueError, match="bad step"):
        list(runner.run(user_id="u1", session_id="s1", new_message=_message()))
