"""Sequential, Parallel and Loop agents on the Runner."""

from __future__ import annotations

import asyncio
from typing import Any

from adk_runtime.agents import LlmAgent, LoopAgent, ParallelAgent, SequentialAgent
from adk_runtime.events import Event
from adk_runtime.models import LlmRequest
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import ToolContext
from tests.llm.helpers import send, start, stored, texts


def note(text: str, tool_context: ToolContext) -> str:
    """Write a scratch note for the next agent."""
    tool_context.state["temp:note"] = text
    return "noted"


async def test_sequential_passes_temp_state(session_service: BaseSessionService) -> None:
    writer = LlmAgent(
        name="writer",
        model=ScriptedModel(replies=[function_call("note", {"text": "draft"}), "written"]),
        tools=[note],
    )
    reader_model = ScriptedModel(replies=["read it"])
    reader = LlmAgent(name="reader", model=reader_model, instruction="Note: {temp:note}")
    pipeline = SequentialAgent(name="pipeline", sub_agents=[writer, reader])
    runner = await start(pipeline, session_service)
    events = await send(runner, "go")
    # The pipeline's progress is in the log too, in google-adk's positions: a checkpoint naming
    # each sub-agent before it runs, and its end (content-less: they never reach a model; see
    # agents/_resume.py). The app is not resumable: they are committed for resuming and not
    # yielded (google-adk's stream has none then), and the LlmAgents record no ends.
    assert [e.author for e in events] == ["writer", "writer", "writer", "reader"]
    session = await stored(runner)
    logged = session.events[1:]
    assert [e.author for e in logged] == [
        "pipeline",
        "writer",
        "writer",
        "writer",
        "pipeline",
        "reader",
        "pipeline",
    ]
    assert logged[0].content is None
    assert logged[0].actions.agent_state == {"current_sub_agent": "writer"}  # google-adk's form
    assert logged[4].actions.agent_state == {"current_sub_agent": "reader"}
    assert logged[6].content is None
    assert logged[6].actions.end_of_agent is True
    assert reader_model.requests[0].config.system_instruction == "Note: draft"
    # the reader sees the writer's turns as context, not as its own
    first = reader_model.requests[0].contents[1]
    assert first.role == "user"
    assert first.parts[0].text.startswith("For context:")  # type: ignore[index,union-attr]
    assert all("temp:note" not in e.actions.state_delta for e in session.events)
    assert "temp:note" not in session.state


async def test_parallel_branches(session_service: BaseSessionService) -> None:
    gate = asyncio.Event()
    order: list[str] = []

    async def slow_reply(request: LlmRequest) -> Any:
        order.append("slow asks")
        await asyncio.wait_for(gate.wait(), 5)
        return "slow answer"

    def fast_reply(request: LlmRequest) -> Any:
        order.append("fast asks")
        if len(fast.requests) == 1:
            return function_call("note", {"text": "x"})
        gate.set()
        return "fast answer"

    slow_model = ScriptedModel(handler=slow_reply)
    fast = ScriptedModel(handler=fast_reply)
    both = ParallelAgent(
        name="both",
        sub_agents=[
            LlmAgent(name="slow", model=slow_model, output_key="slow_out"),
            LlmAgent(name="fast", model=fast, tools=[note], output_key="fast_out"),
        ],
    )
    runner = await start(both, session_service)
    events = await send(runner, "go")
    # Its start (an empty agent_state) and its end are checkpoints of its own, stored and not
    # yielded (the app is not resumable); the branches' LlmAgents record no ends (they resume
    # from their own events).
    session = await stored(runner)
    logged = session.events[1:]
    assert logged[0].author == "both"
    assert logged[0].actions.agent_state == {}
    assert logged[-1].author == "both"
    assert logged[-1].actions.end_of_agent is True
    assert [e.author for e in events] == ["fast"] * 3 + ["slow"]
    assert {e.branch for e in events} == {"both.slow", "both.fast"}
    assert {logged[0].branch, logged[-1].branch} == {None}
    assert [e.id for e in logged[1:-1]] == [e.id for e in events]
    assert session.state == {"slow_out": "slow answer", "fast_out": "fast answer"}
    # a branch sees the shared history and its own events, never the other branch
    slow_contents = slow_model.requests[0].contents
    assert [c.parts[0].text for c in slow_contents] == ["go"]  # type: ignore[index]


async def test_parallel_resumes_after_commit(session_service: BaseSessionService) -> None:
    committed_on_resume: list[bool] = []

    class Probe(LlmAgent):
        async def _run_async_impl(self, ctx: Any) -> Any:  # type: ignore[override]
            for _ in range(3):
                event = Event(invocation_id=ctx.invocation_id, author=self.name, branch=ctx.branch)
                yield event
                # when a branch resumes, its event is committed: append_event puts the
                # stored event into the Runner's session object only after storage took it
                committed_on_resume.append(any(e.id == event.id for e in ctx.session.events))

    agents = [Probe(name=f"p{i}", model=ScriptedModel()) for i in range(3)]
    runner = await start(ParallelAgent(name="par", sub_agents=agents), session_service)
    events = await send(runner, "go")
    assert len(events) == 9
    assert committed_on_resume == [True] * 9
    session = await stored(runner)
    assert session.revision == 12  # the agent's start and end checkpoints are stored around them
    assert [e.id for e in session.events[2:-1]] == [e.id for e in events]


async def test_loop_until_escalate(session_service: BaseSessionService) -> None:
    def count(tool_context: ToolContext) -> int:
        """Count one round; stop at three."""
        value = int(tool_context.state.get("n", 0)) + 1
        tool_context.state["n"] = value
        if value == 3:
            tool_context.actions.escalate = True
        return value

    model = ScriptedModel(
        handler=lambda r: function_call("count") if len(model.requests) % 2 else "next"
    )
    worker = LlmAgent(name="worker", model=model, tools=[count])
    loop = LoopAgent(name="loop", sub_agents=[worker], max_iterations=10)
    runner = await start(loop, session_service)
    events = await send(runner, "go")
    session = await stored(runner)
    assert session.state["n"] == 3
    # the worker finishes its run (one more model reply), then the loop stops (its end is
    # the last event stored; a LoopAgentState checkpoint is stored before each round; neither
    # is yielded, the app not being resumable)
    assert events[-2].actions.escalate is True
    assert texts(events[-1:]) == ["next"]
    assert session.events[-1].actions.end_of_agent is True
    assert not any(e.actions.agent_state or e.actions.end_of_agent for e in events)
    assert [e.actions.agent_state for e in session.events if e.actions.agent_state] == [
        {"current_sub_agent": "worker", "times_looped": 0},
        {"current_sub_agent": "worker", "times_looped": 1},
        {"current_sub_agent": "worker", "times_looped": 2},
    ]
    assert len(model.requests) == 6


async def test_loop_max_iterations(session_service: BaseSessionService) -> None:
    model = ScriptedModel(handler=lambda r: "again")
    loop = LoopAgent(name="loop", sub_agents=[LlmAgent(name="w", model=model)], max_iterations=3)
    runner = await start(loop, session_service)
    events = await send(runner, "go")
    assert texts(events) == ["again"] * 3


async def test_exit_loop_tool(session_service: BaseSessionService) -> None:
    from adk_runtime.tools import exit_loop

    model = ScriptedModel(replies=["draft 1", function_call("exit_loop"), "never"])
    worker = LlmAgent(name="worker", model=model, tools=[exit_loop])
    loop = LoopAgent(name="loop", sub_agents=[worker], max_iterations=5)
    runner = await start(loop, session_service)
    events = await send(runner, "go")
    # the exit_loop response is final (skip_summarization): no further model call
    assert len(model.requests) == 2
    assert events[-1].actions.escalate is True
    assert events[-1].get_function_responses()[0].name == "exit_loop"
    assert (await stored(runner)).events[-1].actions.end_of_agent is True


async def test_workflow_agents_without_sub_agents_end_the_turn_quietly(
    session_service: BaseSessionService,
) -> None:
    for index, agent in enumerate(
        [
            LoopAgent(name="loop", sub_agents=[]),  # no max_iterations: must not spin or fail
            LoopAgent(name="loop2", max_iterations=3, sub_agents=[]),
            SequentialAgent(name="seq", sub_agents=[]),
            ParallelAgent(name="par", sub_agents=[]),
        ]
    ):
        runner = await start(agent, session_service, session_id=f"empty-{index}")
        events = await send(runner, "anything?", session_id=f"empty-{index}")
        assert texts(events) == []
        session = await stored(runner, session_id=f"empty-{index}")
        assert session.events[0].author == "user"
