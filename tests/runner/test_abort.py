"""Stopping an invocation: abort_signal and InvocationContext.abort(), on every store."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from adk_runtime.agents import LlmAgent
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.events import Event
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext
from tests.llm.helpers import APP, USER, start, stored, user

ABORTED = "INVOCATION_ABORTED"


class ProcessDied(BaseException):
    """Stands in for a crash (nothing catches a BaseException)."""


class Blocker:
    """Something that waits until cancelled, and says when it started and how it ended."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = False

    async def wait(self) -> None:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise


async def run(runner: Runner, text: str, signal: asyncio.Event | None = None) -> list[Event]:
    return [
        event
        async for event in runner.run_async(
            user_id=USER, session_id="s1", new_message=user(text), abort_signal=signal
        )
    ]


def responses(events: list[Event]) -> list[tuple[str | None, Any]]:
    return [(r.id, r.response) for e in events for r in e.get_function_responses()]


async def test_a_tool_in_flight_is_stopped_and_its_call_answered_with_an_error(
    session_service: BaseSessionService,
) -> None:
    blocker = Blocker()

    async def charge(amount: int) -> dict[str, Any]:
        """Charge the card."""
        await blocker.wait()
        return {"charged": amount}

    model = ScriptedModel(
        replies=[function_call("charge", {"amount": 5}, id="pay-1"), "Stopped, as you asked."]
    )
    runner = await start(LlmAgent(name="shop", model=model, tools=[charge]), session_service)
    signal = asyncio.Event()

    async def press_stop() -> None:
        await blocker.started.wait()
        signal.set()

    stopper = asyncio.create_task(press_stop())
    events = await run(runner, "pay", signal)
    await stopper
    assert blocker.cancelled  # the tool's wait was cancelled, not left to finish
    assert events[0].get_function_calls()[0].id == "pay-1"
    sealed = events[-1]
    assert sealed.error_code == ABORTED
    assert sealed.author == "shop"
    assert [(r.id, r.name) for r in sealed.get_function_responses()] == [("pay-1", "charge")]
    assert "error" in sealed.get_function_responses()[0].response
    assert len(model.requests) == 1  # the model was not asked again

    session = await stored(runner)
    assert [e.id for e in session.events[1:]] == [e.id for e in events]
    assert responses(session.events) == responses([sealed])
    assert await session_service.list_interrupted_invocations(app_name=APP) == []

    # the next turn runs, and the model sees the stopped call with its error answer
    await run(runner, "never mind")
    contents = model.requests[1].contents
    answered = [p.function_response for c in contents for p in c.parts or [] if p.function_response]
    assert [(r.id, r.response) for r in answered] == responses([sealed])


async def test_a_model_call_in_flight_is_stopped_and_the_stop_recorded(
    session_service: BaseSessionService,
) -> None:
    blocker = Blocker()

    async def hang(request: LlmRequest) -> str:
        await blocker.wait()
        return "never"

    model = ScriptedModel(replies=[hang])
    runner = await start(LlmAgent(name="helper", model=model), session_service)
    signal = asyncio.Event()

    async def press_stop() -> None:
        await blocker.started.wait()
        signal.set()

    stopper = asyncio.create_task(press_stop())
    events = await run(runner, "write me an essay", signal)
    await stopper
    assert blocker.cancelled
    (sealed,) = events
    assert (sealed.author, sealed.error_code, sealed.content) == ("helper", ABORTED, None)
    session = await stored(runner)
    assert [e.author for e in session.events] == ["user", "helper"]
    assert session.events[-1].error_code == ABORTED
    assert await session_service.list_interrupted_invocations(app_name=APP) == []


async def test_a_signal_set_before_the_turn_stores_the_message_and_runs_nothing() -> None:
    model = ScriptedModel(replies=["unused"])
    runner = await start(LlmAgent(name="a", model=model), InMemorySessionService())
    signal = asyncio.Event()
    signal.set()
    events = await run(runner, "hello", signal)
    assert [e.error_code for e in events] == [ABORTED]
    assert model.requests == []
    session = await stored(runner)
    assert session.events[0].content == user("hello")


async def test_code_of_the_invocation_can_abort_it() -> None:
    seen: list[bool] = []

    async def stop_here(tool_context: ToolContext) -> dict[str, Any]:
        """Stop the whole invocation."""
        seen.append(tool_context.is_aborted)
        tool_context._invocation_context.abort()
        seen.append(tool_context.is_aborted)
        return {"ok": True}

    model = ScriptedModel(replies=[function_call("stop_here", {}), "unreachable"])
    runner = await start(
        LlmAgent(name="a", model=model, tools=[stop_here]), InMemorySessionService()
    )
    events = await run(runner, "go")
    assert seen == [False, True]
    assert len(model.requests) == 1
    assert events[-1].error_code == ABORTED
    session = await stored(runner)
    # the call is answered exactly once: by the tool, or by the sealing error if the stop
    # reached the agent before it committed the tool's answer
    call_id = session.events[1].get_function_calls()[0].id
    assert [rid for rid, _ in responses(session.events)] == [call_id]


async def test_another_thread_can_abort_a_running_invocation() -> None:
    blocker = Blocker()
    contexts: list[Any] = []

    async def hang(request: LlmRequest) -> str:
        await blocker.wait()
        return "never"

    def remember(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        contexts.append(callback_context._invocation_context)

    agent = LlmAgent(name="a", model=ScriptedModel(replies=[hang]), before_model_callback=remember)
    runner = await start(agent, InMemorySessionService())

    async def stop_from_a_thread() -> None:
        await blocker.started.wait()
        thread = threading.Thread(target=contexts[0].abort)
        thread.start()
        await asyncio.to_thread(thread.join)

    stopper = asyncio.create_task(stop_from_a_thread())
    events = await asyncio.wait_for(run(runner, "go"), timeout=30)
    await stopper
    assert blocker.cancelled
    assert [e.error_code for e in events] == [ABORTED]


async def test_resuming_with_the_signal_set_seals_the_interrupted_invocation(
    session_service: BaseSessionService,
) -> None:
    attempts: list[int] = []

    def flaky(tool_context: ToolContext) -> dict[str, Any]:
        """The process dies while it runs (the call is committed, its response is not)."""
        attempts.append(tool_context.attempt)
        raise ProcessDied

    model = ScriptedModel(replies=[function_call("flaky", {}, id="c-1"), "done"])
    runner = await start(LlmAgent(name="a", model=model, tools=[flaky]), session_service)
    with pytest.raises(ProcessDied):
        await run(runner, "go")
    [open_one] = await session_service.list_interrupted_invocations(app_name=APP)
    signal = asyncio.Event()
    signal.set()
    events = [
        event
        async for event in runner.run_async(
            user_id=USER,
            session_id="s1",
            invocation_id=open_one.invocation_id,
            abort_signal=signal,
        )
    ]
    assert attempts == [1]  # the failed call was not run again
    assert [e.error_code for e in events] == [ABORTED]
    assert [rid for rid, _ in responses(events)] == ["c-1"]
    assert await session_service.list_interrupted_invocations(app_name=APP) == []
