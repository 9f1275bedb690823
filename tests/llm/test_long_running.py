"""Long-running tools: the invocation pauses, and a later message with the response resumes it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import BaseAgent, InvocationContext, LlmAgent, SequentialAgent
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import LongRunningFunctionTool, ToolContext
from tests.backends import BACKENDS, Backend
from tests.llm.helpers import APP, USER, send, start, stored, texts


def ask_approval(amount: int, tool_context: ToolContext) -> dict[str, Any]:
    """Ask a manager to approve a refund."""
    tool_context.state["pending_amount"] = amount
    return {"status": "pending", "ticket": 7}


def build_agents(
    root_replies: list[Any], approver_replies: list[Any]
) -> tuple[LlmAgent, ScriptedModel]:
    """A fresh agent tree, as a new process would build it."""
    approver_model = ScriptedModel(replies=approver_replies)
    approver = LlmAgent(
        name="approver",
        model=approver_model,
        tools=[LongRunningFunctionTool(ask_approval)],
        disallow_transfer_to_parent=True,
        disallow_transfer_to_peers=True,
    )
    root = LlmAgent(name="root", model=ScriptedModel(replies=root_replies), sub_agents=[approver])
    return root, approver_model


def approval(call_id: str, status: str) -> types.Content:
    response = types.FunctionResponse(id=call_id, name="ask_approval", response={"status": status})
    return types.Content(role="user", parts=[types.Part(function_response=response)])


async def pause(runner: Runner) -> list[Any]:
    events = await send(runner, "refund 30 please")
    return events


async def test_pause_then_resume_with_new_runner(session_service: BaseSessionService) -> None:
    root, _ = build_agents(
        [function_call("transfer_to_agent", {"agent_name": "approver"})],
        [function_call("ask_approval", {"amount": 30}, id="lr-1")],
    )
    runner = await start(root, session_service)
    events = await pause(runner)
    assert [e.author for e in events] == ["root", "root", "approver", "approver"]
    call_event, pending = events[2], events[3]
    assert call_event.long_running_tool_ids == {"lr-1"}
    assert pending.get_function_responses()[0].response == {"status": "pending", "ticket": 7}
    assert pending.actions.state_delta == {"pending_amount": 30}
    invocation_id = call_event.invocation_id

    # A "restart": new agent objects, new models, a new Runner on the same store.
    root2, approver_model = build_agents([], ["refund approved"])
    runner2 = Runner(app_name=APP, agent=root2, session_service=session_service)
    resumed = await send(runner2, approval("lr-1", "approved"))
    assert [e.author for e in resumed] == ["approver"]
    assert texts(resumed) == ["refund approved"]
    assert resumed[0].invocation_id == invocation_id
    contents = approver_model.requests[0].contents
    # the call is followed by its final response (the pending one is superseded)
    responses = [
        p.function_response for c in contents for p in c.parts or [] if p.function_response
    ]
    assert [r.response for r in responses] == [{"status": "approved"}]
    assert contents[-1].parts[0].function_response is not None  # type: ignore[index]
    session = await stored(runner2)
    assert session.events[-2].author == "user"
    assert session.events[-2].invocation_id == invocation_id
    assert session.state["pending_amount"] == 30


# The SQL backends: a second ``open`` in the same test reaches the same database (the
# SQLite file under tmp_path, the test's PostgreSQL database), as a restarted process would.
SQL_BACKENDS = ("sqlite", "postgres")
DURABLE = [b.param() for b in BACKENDS if b.durable and b.name in SQL_BACKENDS]


@pytest.mark.parametrize("backend", DURABLE)
async def test_resume_after_restart_on_durable_store(
    backend: Backend, request: pytest.FixtureRequest
) -> None:
    # Two service objects on one store stand for two processes (SQL engines are built
    # outside the blocking-call check here; the other tests run under it).
    async with backend.open(request) as first_process:
        root, _ = build_agents(
            [function_call("transfer_to_agent", {"agent_name": "approver"})],
            [function_call("ask_approval", {"amount": 30}, id="lr-9")],
        )
        runner = await start(root, first_process)
        paused = await pause(runner)
        invocation_id = paused[-1].invocation_id

        # The restarted process: new service objects, new agents and a new Runner.
        async with backend.open(request) as reopened:
            await _resume(backend, reopened, invocation_id)


async def _resume(backend: Backend, service: BaseSessionService, invocation_id: str) -> None:
    before = await service.get_session(app_name=APP, user_id=USER, session_id="s1")
    assert before is not None, f"{backend.name}: a second service must see the same store"
    assert before.events[-2].long_running_tool_ids == {"lr-9"}
    root, approver_model = build_agents([], ["refund approved"])
    runner = Runner(app_name=APP, agent=root, session_service=service)
    resumed = await send(runner, approval("lr-9", "approved"))
    assert [(e.author, e.invocation_id) for e in resumed] == [("approver", invocation_id)]
    assert texts(resumed) == ["refund approved"]
    session = await stored(runner)
    authors = ["user", "root", "root", "approver", "approver", "user", "approver"]
    assert [e.author for e in session.events] == authors
    assert session.state["pending_amount"] == 30
    last_content = approver_model.requests[0].contents[-1]
    assert last_content.parts[0].function_response.response == {"status": "approved"}  # type: ignore[index,union-attr]


async def test_long_running_tool_without_intermediate_result(
    session_service: BaseSessionService,
) -> None:
    started: list[str] = []

    def start_job(name: str) -> None:
        """Start a job; its result arrives later."""
        started.append(name)

    model = ScriptedModel(
        replies=[function_call("start_job", {"name": "build"}, id="job-1"), "built"]
    )
    agent = LlmAgent(name="ops", model=model, tools=[LongRunningFunctionTool(start_job)])
    runner = await start(agent, session_service)
    events = await send(runner, "build it")
    assert started == ["build"]
    assert len(events) == 1  # the call only: no response yet, the invocation pauses
    assert events[0].long_running_tool_ids == {"job-1"}
    assert events[0].is_final_response()
    assert len(model.requests) == 1
    done = types.FunctionResponse(id="job-1", name="start_job", response={"ok": True})
    resumed = await send(
        runner, types.Content(role="user", parts=[types.Part(function_response=done)])
    )
    assert texts(resumed) == ["built"]
    assert resumed[0].invocation_id == events[0].invocation_id
    declaration = model.requests[0].config.tools[0].function_declarations[0]  # type: ignore[index]
    assert "long-running operation" in (declaration.description or "")


async def test_a_late_result_inside_a_workflow_resumes_the_workflow(
    session_service: BaseSessionService,
) -> None:
    def start_job(name: str) -> None:
        """Start a job; its result arrives later."""

    ops = LlmAgent(
        name="ops",
        model=ScriptedModel(replies=[function_call("start_job", {"name": "b"}, id="j1"), "built"]),
        tools=[LongRunningFunctionTool(start_job)],
    )
    notify = LlmAgent(name="notify", model=ScriptedModel(replies=["told the team"]))
    runner = await start(SequentialAgent(name="flow", sub_agents=[ops, notify]), session_service)
    paused = await send(runner, "build it")
    assert "notify" not in [e.author for e in paused]
    done = types.FunctionResponse(id="j1", name="start_job", response={"ok": True})
    resumed = await send(
        runner, types.Content(role="user", parts=[types.Part(function_response=done)])
    )
    assert texts(resumed) == ["built", "told the team"]
    assert {e.invocation_id for e in resumed} == {paused[0].invocation_id}


class HumanAsker(BaseAgent):
    """A custom agent that asks a person (a long-running call) and reports the answer."""

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        parts = ctx.user_content.parts or [] if ctx.user_content else []
        answers = [part.function_response for part in parts if part.function_response]
        if answers:
            text = f"the person said {answers[0].response}"
            content = types.Content(role="model", parts=[types.Part(text=text)])
            yield Event(invocation_id=ctx.invocation_id, author=self.name, content=content)
            return
        call = types.FunctionCall(id="ask-1", name="ask_person", args={})
        yield Event(
            invocation_id=ctx.invocation_id,
            author=self.name,
            content=types.Content(role="model", parts=[types.Part(function_call=call)]),
            long_running_tool_ids={"ask-1"},
        )


async def test_a_custom_agent_inside_a_workflow_gets_its_answer(
    session_service: BaseSessionService,
) -> None:
    """A custom agent whose pause was answered runs again (and sees the answer), then the
    workflow goes on; its pause is not taken for a finished answer."""
    closer = LlmAgent(name="closer", model=ScriptedModel(replies=["closing"]))
    flow = SequentialAgent(name="flow", sub_agents=[HumanAsker(name="asker"), closer])
    runner = await start(flow, session_service)
    paused = await send(runner, "go")
    assert "closer" not in [e.author for e in paused]
    response = types.FunctionResponse(id="ask-1", name="ask_person", response={"ok": 1})
    resumed = await send(
        runner, types.Content(role="user", parts=[types.Part(function_response=response)])
    )
    assert texts(resumed) == ["the person said {'ok': 1}", "closing"]
    assert {e.invocation_id for e in resumed} == {paused[0].invocation_id}


async def test_a_turn_that_died_paused_is_not_resumed_past_its_pause(
    session_service: BaseSessionService,
) -> None:
    """The process died after committing the pause (the call and its pending result) and
    before releasing the session: the next turn finishes that invocation, which has nothing
    left to do: the pending result is no answer, so the model is not called for it."""

    def start_job(name: str) -> dict[str, Any]:
        """Start a job; its result arrives later."""
        return {"status": "pending"}

    model = ScriptedModel(
        replies=[function_call("start_job", {"name": "build"}, id="job-1"), "nothing yet"]
    )
    agent = LlmAgent(name="ops", model=model, tools=[LongRunningFunctionTool(start_job)])
    runner = await start(agent, session_service)
    paused = await send(runner, "build it")
    assert paused[-1].get_function_responses()  # the pending result was committed
    invocation = paused[0].invocation_id
    # The dead process's claim: held for the paused invocation, never released.
    lease = 0.3
    attempt = await session_service._try_claim((APP, USER, "s1"), lease, invocation)
    assert attempt.token is not None
    await asyncio.sleep(lease + 0.2)

    later = await send(runner, "anything new?")
    assert texts(later) == ["nothing yet"]
    assert len(model.requests) == 2  # the pause's turn, then this one: none for the resume
    events = (await stored(runner)).events
    resumed = [e.id for e in events if e.invocation_id == invocation and e.author != "user"]
    assert resumed == [e.id for e in paused]  # nothing was added to the paused invocation
