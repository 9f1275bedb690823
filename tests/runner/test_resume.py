"""Resuming an interrupted invocation from its last committed event, on every backend.

A failure that escapes the agent (here a ``BaseException`` from a tool or the model, as a
process being killed would leave it) stops the turn: what was committed stays, the claim is
released, and the invocation stays open ("failed"). ``run_async(invocation_id=X)`` with no
new message then continues it: committed steps are not redone, a call committed without its
response runs again (``tool_context.attempt == 2``), and the model sees the contents it
would have seen. (The same with real SIGKILLs: tests/reliability/test_resume_crash.py.)
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.errors import InvocationNotOpenError
from adk_runtime.events import Event
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing.scripted_model import ScriptedModel, function_call
from tests.backends import twin

APP = "resume"


class Crash(BaseException):
    """Stands for the process dying: nothing in the runtime catches it."""


class Tools:
    """Two tools that count their runs (and can crash once)."""

    def __init__(self) -> None:
        self.runs: list[tuple[str, int, str | None]] = []
        self.crash_in: set[str] = set()

    def add(self, a: int, b: int, tool_context: ToolContext) -> dict[str, Any]:
        """Add two numbers."""
        self.runs.append(("add", tool_context.attempt, tool_context.function_call_id))
        tool_context.state["sum"] = a + b
        if "add" in self.crash_in:
            self.crash_in.discard("add")
            raise Crash
        return {"sum": a + b}

    def double(self, x: int, tool_context: ToolContext) -> dict[str, Any]:
        """Double a number."""
        self.runs.append(("double", tool_context.attempt, tool_context.function_call_id))
        return {"doubled": 2 * x}


def _model(crash_on_call: int | None = None) -> ScriptedModel:
    """add(2, 3) → double(5) → the answer; raises Crash on call number ``crash_on_call``."""
    calls = [0]

    def reply(request: LlmRequest) -> Any:
        calls[0] += 1
        if calls[0] == crash_on_call:
            raise Crash
        answered = [
            part.function_response
            for content in request.contents
            for part in content.parts or []
            if part.function_response is not None
        ]
        if not answered:
            return function_call("add", {"a": 2, "b": 3}, id="call-add")
        if len(answered) == 1:
            return function_call("double", {"x": answered[0].response["sum"]}, id="call-double")
        return f"The answer is {answered[1].response['doubled']}."

    return ScriptedModel(handler=reply)


def _runner(service: BaseSessionService, tools: Tools, model: ScriptedModel) -> Runner:
    agent = LlmAgent(name="calc", model=model, tools=[tools.add, tools.double], output_key="answer")
    return Runner(app_name=APP, agent=agent, session_service=service)


async def _session(service: BaseSessionService) -> str:
    sid = uuid.uuid4().hex
    await service.create_session(app_name=APP, user_id="u", session_id=sid)
    return sid


async def _start(runner: Runner, sid: str) -> str:
    """Send the message; the turn crashes. Returns the invocation id."""
    message = types.Content(role="user", parts=[types.Part(text="compute")])
    with pytest.raises(Crash):
        await _drain(runner.run_async(user_id="u", session_id=sid, new_message=message))
    session = await runner.session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    return session.events[0].invocation_id


async def _drain(events: AsyncIterator[Event]) -> list[Event]:
    return [event async for event in events]


async def _resume(runner: Runner, sid: str, invocation_id: str) -> list[Event]:
    return [
        event
        async for event in runner.run_async(
            user_id="u", session_id=sid, invocation_id=invocation_id
        )
    ]


def _final_text(events: list[Event]) -> str:
    final = events[-1]
    assert final.content is not None
    assert final.content.parts
    return final.content.parts[0].text or ""


async def test_a_call_committed_without_its_response_runs_again_and_the_turn_finishes(
    session_service: BaseSessionService,
) -> None:
    sid = await _session(session_service)
    tools = Tools()
    tools.crash_in.add("add")
    invocation = await _start(_runner(session_service, tools, _model()), sid)
    [interrupted] = await session_service.list_interrupted_invocations(app_name=APP)
    assert (interrupted.session_id, interrupted.invocation_id, interrupted.status) == (
        sid,
        invocation,
        "failed",
    )

    async with twin(session_service) as replica:
        events = await _resume(_runner(replica, tools, _model()), sid, invocation)

    assert _final_text(events) == "The answer is 10."
    # add ran twice (its response was never committed), the second time as a retry with the
    # same call id; double ran once.
    assert tools.runs == [
        ("add", 1, "call-add"),
        ("add", 2, "call-add"),
        ("double", 1, "call-double"),
    ]
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    assert {e.invocation_id for e in session.events} == {invocation}
    assert session.state == {"sum": 5, "answer": "The answer is 10."}
    assert await session_service.list_interrupted_invocations(app_name=APP) == []


async def test_committed_tool_results_are_not_redone_and_the_model_sees_them(
    session_service: BaseSessionService,
) -> None:
    sid = await _session(session_service)
    tools = Tools()
    invocation = await _start(_runner(session_service, tools, _model(crash_on_call=2)), sid)
    assert tools.runs == [("add", 1, "call-add")]  # its response is committed

    model = _model()
    events = await _resume(_runner(session_service, tools, model), sid, invocation)

    assert _final_text(events) == "The answer is 10."
    assert tools.runs == [("add", 1, "call-add"), ("double", 1, "call-double")]
    # The resumed model call saw the message, the call and its committed response.
    first = model.requests[0].contents
    assert [c.role for c in first] == ["user", "model", "user"]
    assert first[2].parts[0].function_response.response == {"sum": 5}


async def test_an_invocation_is_not_resumed_twice(session_service: BaseSessionService) -> None:
    sid = await _session(session_service)
    tools = Tools()
    tools.crash_in.add("add")
    invocation = await _start(_runner(session_service, tools, _model()), sid)
    runner = _runner(session_service, tools, _model())
    runner.session_wait_seconds = 10
    async with twin(session_service) as replica:
        other = _runner(replica, tools, _model())
        other.session_wait_seconds = 10
        results = await asyncio.gather(
            _resume(runner, sid, invocation),
            _resume(other, sid, invocation),
            return_exceptions=True,
        )
    errors = [r for r in results if isinstance(r, BaseException)]
    assert len(errors) == 1, results
    assert isinstance(errors[0], InvocationNotOpenError)
    assert [name for name, *_ in tools.runs].count("double") == 1
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    revision = session.revision
    with pytest.raises(InvocationNotOpenError):  # finished: nothing to resume, nothing written
        await _resume(runner, sid, invocation)
    with pytest.raises(InvocationNotOpenError):
        await _resume(runner, sid, "e-never-ran")
    again = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert again is not None
    assert again.revision == revision


async def test_a_crashed_holders_invocation_is_finished_by_the_next_turn(
    session_service: BaseSessionService,
) -> None:
    sid = await _session(session_service)
    tools = Tools()
    runner = _runner(session_service, tools, _model())
    # What a turn does before its process dies: claim (recording its invocation), commit the
    # message and the model's first function call; never release.
    lease = 2.0  # long enough that a loaded machine still lists it as running below
    claimed_at = time.monotonic()
    attempt = await session_service._try_claim((APP, "u", sid), lease, "e-dead")
    assert attempt.token is not None
    assert attempt.open_invocation == "e-dead"
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    session._fence = attempt.token
    text = types.Content(role="user", parts=[types.Part(text="compute")])
    await session_service.append_event(
        session, Event(invocation_id="e-dead", author="user", content=text)
    )
    call = types.Content(role="model", parts=[function_call("add", {"a": 2, "b": 3}, id="c1")])
    await session_service.append_event(
        session, Event(invocation_id="e-dead", author="calc", content=call)
    )
    [running] = await session_service.list_interrupted_invocations(
        app_name=APP, user_id="u", session_id=sid, include_running=True
    )
    assert running.status == "running"
    await asyncio.sleep(max(0.0, claimed_at + lease + 0.2 - time.monotonic()))
    [crashed] = await session_service.list_interrupted_invocations(app_name=APP, user_id="u")
    assert (crashed.invocation_id, crashed.status) == ("e-dead", "crashed")

    said = [
        event
        async for event in runner.run_async(
            user_id="u", session_id=sid, new_message=types.Content(role="user", parts=[])
        )
    ]

    assert tools.runs[0] == ("add", 2, "c1")  # the dead turn's call, retried
    log = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert log is not None
    dead = [e for e in log.events if e.invocation_id == "e-dead"]
    assert dead[-1].content is not None
    assert dead[-1].content.parts[0].text == "The answer is 10."
    assert all(e.invocation_id != "e-dead" for e in said)  # not yielded to the new caller
    assert await session_service.list_interrupted_invocations(app_name=APP) == []


async def test_listing_is_scoped_and_validated(session_service: BaseSessionService) -> None:
    sids = [await _session(session_service) for _ in range(2)]
    other = uuid.uuid4().hex
    await session_service.create_session(app_name=APP, user_id="v", session_id=other)
    for user, sid in [("u", sids[0]), ("u", sids[1]), ("v", other)]:
        attempt = await session_service._try_claim((APP, user, sid), 5.0, f"e-{sid}")
        assert attempt.token is not None
        await session_service._release_claim((APP, user, sid), attempt.token)
    listed = await session_service.list_interrupted_invocations(app_name=APP)
    assert sorted(i.session_id for i in listed) == sorted([*sids, other])
    by_user = await session_service.list_interrupted_invocations(app_name=APP, user_id="u")
    assert sorted(i.session_id for i in by_user) == sorted(sids)
    one = await session_service.list_interrupted_invocations(
        app_name=APP, user_id="v", session_id=other
    )
    assert [(i.user_id, i.invocation_id, i.status) for i in one] == [("v", f"e-{other}", "failed")]
    assert await session_service.list_interrupted_invocations(app_name="elsewhere") == []
    await session_service.delete_session(app_name=APP, user_id="v", session_id=other)
    assert len(await session_service.list_interrupted_invocations(app_name=APP)) == 2
    with pytest.raises(ValueError, match="session_id needs user_id"):
        await session_service.list_interrupted_invocations(app_name=APP, session_id=other)


async def test_a_sequence_resumes_at_the_sub_agent_its_checkpoint_names(
    session_service: BaseSessionService,
) -> None:
    from adk_runtime.agents import SequentialAgent

    crash = {"second": True}

    def second_reply(request: LlmRequest) -> str:
        if crash["second"]:
            crash["second"] = False
            raise Crash
        return "two"

    first_model = ScriptedModel(replies=["one"])
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(name="first", model=first_model),
            LlmAgent(name="second", model=ScriptedModel(handler=second_reply)),
            LlmAgent(name="third", model=ScriptedModel(replies=["three"])),
        ],
    )
    runner = Runner(app_name=APP, agent=pipeline, session_service=session_service)
    sid = await _session(session_service)
    invocation = await _start(runner, sid)
    session = await session_service.get_session(app_name=APP, user_id="u", session_id=sid)
    assert session is not None
    # google-adk's SequentialAgentState, naming the sub-agent to run next
    assert session.events[-1].actions.agent_state == {"current_sub_agent": "second"}

    events = await _resume(runner, sid, invocation)
    assert [e.author for e in events if e.content] == ["second", "third"]
    assert len(first_model.requests) == 1  # the first sub-agent's answer was committed
