"""A turn's store steps (issue 50): claim, read and message in one; the release with the answer.

An ``LlmAgent``'s final response is its run's last event when nothing can follow it; the
Runner commits it together with the release: no separate release round trip, and the
session is free for the next turn as soon as the answer is committed. The claim, the read
and the user's message are one step (``BaseSessionService._start_turn``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

from google.genai import types

from adk_runtime.agents import InvocationContext, LlmAgent
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call, text_event
from tests.backends import twin

APP = "turn-release"


def _message(text: str) -> types.Content:
    return types.Content(role="user", parts=[types.Part(text=text)])


def _count_releases(service: BaseSessionService) -> list[bool]:
    """Record each separate release call the service gets (its ``finished`` flag)."""
    calls: list[bool] = []
    release = service._release_claim

    async def counted(key: Any, token: int, finished: bool = False) -> None:
        calls.append(finished)
        await release(key, token, finished)

    service._release_claim = counted  # type: ignore[method-assign]
    return calls


def _tool_agent(**kwargs: Any) -> LlmAgent:
    def lookup(city: str) -> dict[str, str]:
        """The weather in a city."""
        return {"city": city, "weather": "sunny"}

    def reply(request: Any) -> Any:
        if request.contents[-1].parts[-1].function_response is not None:
            return "It is sunny."
        return function_call("lookup", {"city": "Paris"})

    return LlmAgent(name="assistant", model=ScriptedModel(handler=reply), tools=[lookup], **kwargs)


async def _run(runner: Runner, sid: str, text: str) -> list[Event]:
    events = []
    async for event in runner.run_async(user_id="u", session_id=sid, new_message=_message(text)):
        events.append(event)
    return events


async def test_the_answer_carries_the_release(session_service: BaseSessionService) -> None:
    releases = _count_releases(session_service)
    runner = Runner(
        app_name=APP, agent=_tool_agent(), session_service=session_service,
        auto_create_session=True,
    )  # fmt: skip
    events = await _run(runner, "s1", "weather?")
    assert [bool(e.get_function_calls()) for e in events] == [True, False, False]
    assert releases == []  # no release round trip of its own
    found = await session_service.list_interrupted_invocations(
        app_name=APP, user_id="u", include_running=True
    )
    assert found == []  # the invocation was closed with its answer
    # Free for the next turn at once, from another replica too.
    async with twin(session_service) as other:
        claim = other.claim_session(app_name=APP, user_id="u", session_id="s1")
        async with claim:
            assert not claim.took_over
    await _run(runner, "s1", "and tomorrow?")
    stored = await session_service.get_session(app_name=APP, user_id="u", session_id="s1")
    assert stored is not None
    assert [e.author for e in stored.events] == ["user", *["assistant"] * 3] * 2


def _count_steps(service: BaseSessionService) -> list[str]:
    """Record each store step the service takes (its backend hooks, by name)."""
    steps: list[str] = []
    hooks = ("_claim_and_read", "_try_claim", "_extend_claim", "_release_claim")
    for name in (*hooks, "_get_session", "_get_session_tail", "_append_event"):
        hook = getattr(service, name)

        async def counted(*args: Any, _hook: Any = hook, _name: str = name, **kwargs: Any) -> Any:
            steps.append(_name)
            return await _hook(*args, **kwargs)

        setattr(service, name, counted)
    return steps


async def test_a_tool_turn_is_four_store_steps(session_service: BaseSessionService) -> None:
    """Claim + read + message, the call, the tool's answer, the answer + release."""
    await session_service.create_session(app_name=APP, user_id="u", session_id="s0")
    steps = _count_steps(session_service)
    runner = Runner(app_name=APP, agent=_tool_agent(), session_service=session_service)
    for turn in range(2):
        del steps[:]
        events = await _run(runner, "s0", f"weather {turn}?")
        assert len(events) == 3
        assert steps == ["_claim_and_read", *["_append_event"] * 3]
    stored = await session_service.get_session(app_name=APP, user_id="u", session_id="s0")
    assert stored is not None
    assert [e.author for e in stored.events] == ["user", *["assistant"] * 3] * 2


async def test_the_session_is_free_once_the_answer_is_committed(
    session_service: BaseSessionService,
) -> None:
    """A caller still holding the turn's stream after the answer blocks nobody."""
    runner = Runner(
        app_name=APP, agent=_tool_agent(), session_service=session_service,
        auto_create_session=True, session_lease_seconds=0.3,
    )  # fmt: skip
    stream = runner.run_async(user_id="u", session_id="s2", new_message=_message("weather?"))
    async for event in stream:
        if event.is_final_response():
            await asyncio.sleep(0.5)  # past renewals: none may hold the session again
            async with twin(session_service) as other:
                claim = other.claim_session(app_name=APP, user_id="u", session_id="s2")
                async with claim:
                    assert not claim.took_over


async def test_an_after_agent_callback_keeps_the_release_after_the_run(
    session_service: BaseSessionService,
) -> None:
    releases = _count_releases(session_service)

    def after(callback_context: Any) -> types.Content:
        return types.Content(role="model", parts=[types.Part(text="signed off")])

    agent = _tool_agent(after_agent_callback=after)
    runner = Runner(
        app_name=APP, agent=agent, session_service=session_service, auto_create_session=True
    )
    events = await _run(runner, "s3", "weather?")
    assert events[-1].content is not None
    assert events[-1].content.parts is not None
    assert events[-1].content.parts[0].text == "signed off"
    assert releases == [True]  # the answer could not be the last event
    stored = await session_service.get_session(app_name=APP, user_id="u", session_id="s3")
    assert stored is not None
    assert len(stored.events) == 5


class _EarlyEnder(BaseAgent):
    """Says every event is its last, then yields another: wrong, and still safe."""

    def _ends_run_with(self, ctx: InvocationContext, event: Event) -> bool:
        return True

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        for text in ("one", "two"):
            event = text_event(text, state_delta={"said": text})
            event.author = self.name
            event.invocation_id = ctx.invocation_id
            yield event


async def test_an_agent_that_yields_after_its_last_event_loses_nothing(
    session_service: BaseSessionService,
) -> None:
    runner = Runner(
        app_name=APP, agent=_EarlyEnder(name="early"), session_service=session_service,
        auto_create_session=True,
    )  # fmt: skip
    await _run(runner, "s4", "go")
    await _run(runner, "s4", "again")  # the session was left free
    stored = await session_service.get_session(app_name=APP, user_id="u", session_id="s4")
    assert stored is not None
    assert [e.author for e in stored.events] == ["user", "early", "early"] * 2
    assert stored.state["said"] == "two"


async def test_a_service_that_overrides_its_steps_sees_each_of_them(
    session_service: BaseSessionService,
) -> None:
    """google-adk's extension points: a subclass's ``get_session`` and ``append_event`` run."""
    seen: list[str] = []
    kind = type(session_service)

    class Watching(kind):  # type: ignore[valid-type,misc]
        async def get_session(self, **kwargs: Any) -> Any:
            seen.append("read")
            return await super().get_session(**kwargs)

        async def append_event(self, session: Any, event: Event) -> Event:
            seen.append(event.author)
            return await super().append_event(session, event)

    session_service.__class__ = Watching  # the same store and connections, now a subclass
    runner = Runner(
        app_name=APP, agent=_tool_agent(), session_service=session_service,
        auto_create_session=True,
    )  # fmt: skip
    await _run(runner, "s5", "weather?")
    assert seen == ["read", "assistant", "assistant", "assistant"]
