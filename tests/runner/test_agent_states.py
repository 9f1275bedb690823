"""google-adk's agent-state API for custom resumable agents, on every backend.

A custom agent records its progress with ``ctx.set_agent_state`` and commits it with
``_create_agent_state_event``; when its invocation is resumed, the Runner fills
``ctx.agent_states`` from the committed events and the agent reads its state back with
``_load_agent_state``, continuing where it stopped.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncGenerator

import pytest
from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext
from adk_runtime.apps import ResumabilityConfig
from adk_runtime.core.base_agent import BaseAgentState
from adk_runtime.events import Event, EventActions
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import function_call

APP = "states"


class Crash(BaseException):
    """Stands for the process dying: nothing in the runtime catches it."""


class StepState(BaseAgentState):
    done: int = 0


class Steps(BaseAgent):
    """Does three steps, recording after each how many are done; may crash after one."""

    crash_after: int | None = None
    crash_at_end: bool = False
    seen_states: list[int | None] = []

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        state = self._load_agent_state(ctx, StepState)
        self.seen_states.append(None if state is None else state.done)
        for step in range(0 if state is None else state.done, 3):
            yield Event(
                invocation_id=ctx.invocation_id,
                author=self.name,
                content=types.Content(role="model", parts=[types.Part(text=f"step {step}")]),
            )
            ctx.set_agent_state(self.name, agent_state=StepState(done=step + 1))
            yield self._create_agent_state_event(ctx)
            if step == self.crash_after:
                self.crash_after = None
                raise Crash
        ctx.set_agent_state(self.name, end_of_agent=True)
        yield self._create_agent_state_event(ctx)
        if self.crash_at_end:
            raise Crash


async def _crashed_turn(runner: Runner, service: BaseSessionService) -> tuple[str, str]:
    """A turn that crashes; returns the session id and the open invocation's id."""
    sid = uuid.uuid4().hex
    await service.create_session(app_name=APP, user_id="u", session_id=sid)
    message = types.Content(role="user", parts=[types.Part(text="go")])
    with pytest.raises(Crash):
        async for _ in runner.run_async(user_id="u", session_id=sid, new_message=message):
            pass
    session = await service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    return sid, session.events[0].invocation_id


async def test_a_custom_agent_resumes_from_the_state_it_recorded(
    session_service: BaseSessionService,
) -> None:
    agent = Steps(name="steps", crash_after=1, seen_states=[])
    runner = Runner(app_name=APP, agent=agent, session_service=session_service)
    sid, invocation = await _crashed_turn(runner, session_service)
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    assert session.events[-1].actions.agent_state == {"done": 2}

    resumed = [
        event
        async for event in runner.run_async(user_id="u", session_id=sid, invocation_id=invocation)
    ]
    assert agent.seen_states == [None, 2]  # the second run read its state back
    assert [e.content.parts[0].text for e in resumed if e.content and e.content.parts] == ["step 2"]
    assert resumed[-1].actions.end_of_agent
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    steps = [e.content.parts[0].text for e in session.events if e.content and e.author == "steps"]
    assert steps == ["step 0", "step 1", "step 2"]  # no step done twice


async def test_an_agent_that_recorded_its_end_is_not_run_again() -> None:
    service = InMemorySessionService()
    agent = Steps(name="steps", crash_at_end=True, seen_states=[])
    runner = Runner(app_name=APP, agent=agent, session_service=service)
    sid, invocation = await _crashed_turn(runner, service)
    events = [
        e async for e in runner.run_async(user_id="u", session_id=sid, invocation_id=invocation)
    ]
    assert events == []
    assert agent.seen_states == [None]  # run once, never again
    assert await service.list_interrupted_invocations(app_name=APP) == []


def _context(agent: BaseAgent, events: list[Event]) -> InvocationContext:
    from adk_runtime.sessions import Session

    session = Session(id="s", app_name=APP, user_id="u", events=events)
    return InvocationContext(
        invocation_id="inv", session=session, agent=agent, session_service=InMemorySessionService()
    )


def test_set_reset_and_populate_follow_google_adks_rules() -> None:
    leaf = Steps(name="leaf", seen_states=[])
    middle = Steps(name="middle", sub_agents=[leaf], seen_states=[])
    root = Steps(name="root", sub_agents=[middle], seen_states=[])
    ctx = _context(root, [])
    ctx.set_agent_state("middle", agent_state=StepState(done=1))
    ctx.set_agent_state("leaf", end_of_agent=True)
    assert ctx.agent_states == {"middle": {"done": 1}}
    assert ctx.end_of_agents == {"middle": False, "leaf": True}
    copy = ctx.model_copy()  # a sub-agent's context shares them
    copy.set_agent_state("root", agent_state=StepState(done=2))
    assert ctx.agent_states["root"] == {"done": 2}
    ctx.reset_sub_agent_states("root")
    assert ctx.agent_states == {"root": {"done": 2}}
    assert ctx.end_of_agents == {"root": False}

    said = types.Content(role="model", parts=[types.Part(text="hi")])
    events = [
        Event(invocation_id="inv", author="user", content=said),
        Event(invocation_id="inv", author="talker", content=said),
        Event(invocation_id="inv", author="a", actions=EventActions(agent_state={"done": 1})),
        Event(invocation_id="inv", author="b", actions=EventActions(agent_state={"done": 1})),
        Event(invocation_id="inv", author="b", actions=EventActions(end_of_agent=True)),
        Event(invocation_id="other", author="c", actions=EventActions(agent_state={"x": 1})),
    ]
    ctx = _context(root, events)
    ctx.populate_invocation_agent_states()  # google-adk: a context that is not resumable
    assert ctx.agent_states == {}
    assert ctx.end_of_agents == {}
    ctx.resumability_config = ResumabilityConfig(is_resumable=True)
    ctx.populate_invocation_agent_states()
    assert ctx.agent_states == {"talker": {}, "a": {"done": 1}}
    assert ctx.end_of_agents == {"talker": False, "a": False, "b": True}
    under_runner = _context(root, events)
    under_runner._durable = True  # the Runner's contexts: resumable whatever the app says
    under_runner.populate_invocation_agent_states()
    assert under_runner.agent_states == ctx.agent_states


def test_should_pause_and_the_event_helpers() -> None:
    call = function_call("wait", {}, id="c1")
    pending = Event(
        invocation_id="inv",
        author="a",
        branch="a",
        content=types.Content(role="model", parts=[call]),
        long_running_tool_ids={"c1"},
    )
    plain = pending.model_copy(update={"long_running_tool_ids": None})
    answer = Event(
        invocation_id="inv",
        author="user",
        content=types.Content(
            role="user",
            parts=[types.Part(function_response=types.FunctionResponse(id="c1", name="wait"))],
        ),
    )
    other = Event(invocation_id="old", author="user", content=types.Content(role="user"))
    ctx = _context(Steps(name="a", seen_states=[]), [other, pending, answer])
    ctx.branch = "a"
    assert ctx.should_pause_invocation(pending)
    assert not ctx.should_pause_invocation(plain)
    assert ctx._get_events(current_invocation=True) == [pending, answer]
    assert ctx._get_events(current_invocation=True, current_branch=True) == [pending]
    assert ctx._find_matching_function_call(answer) is pending
    assert ctx._find_matching_function_call(other) is None
