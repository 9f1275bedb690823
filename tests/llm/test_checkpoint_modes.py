"""Which checkpoint events the agents yield: none by hand, google-adk's when resumable.

A context built by hand without google-adk's switch records nothing (google-adk's plain
stream); with ``ResumabilityConfig(is_resumable=True)`` the agents yield google-adk's
resumable stream, positions and contents alike; the Runner's invocations always record the
workflow checkpoints a resumption needs, stored and, outside resumable mode, not yielded
(tests/llm/test_workflow_agents.py).
"""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_runtime.agents import InvocationContext, LlmAgent, ParallelAgent, SequentialAgent
from adk_runtime.apps import App, ResumabilityConfig
from adk_runtime.events import Event
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import APP, USER, stored, user

END = "END"


def _shape(events: list[Event]) -> list[tuple[str, Any]]:
    """(author, text / agent_state / END) of each event, function parts by name."""
    shaped: list[tuple[str, Any]] = []
    for event in events:
        if event.content and event.content.parts:
            part = event.content.parts[0]
            if part.function_call:
                shaped.append((event.author, f"call {part.function_call.name}"))
            elif part.function_response:
                shaped.append((event.author, f"response {part.function_response.name}"))
            else:
                shaped.append((event.author, part.text))
        elif event.actions.end_of_agent:
            shaped.append((event.author, END))
        elif event.actions.agent_state is not None:
            shaped.append((event.author, event.actions.agent_state))
    return shaped


def _pipeline() -> SequentialAgent:
    return SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(name="a", model=ScriptedModel(replies=["from a"])),
            LlmAgent(name="b", model=ScriptedModel(replies=["from b"])),
        ],
    )


async def _run_by_hand(agent: Any, config: ResumabilityConfig | None) -> list[Event]:
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id=USER)
    ctx = InvocationContext(
        invocation_id="inv",
        agent=agent,
        session=session,
        session_service=service,
        user_content=user("go"),
        resumability_config=config,
    )
    return [event async for event in agent.run_async(ctx)]


RESUMABLE_PIPELINE = [
    ("pipeline", {"current_sub_agent": "a"}),
    ("a", "from a"),
    ("a", END),
    ("pipeline", {"current_sub_agent": "b"}),
    ("b", "from b"),
    ("b", END),
    ("pipeline", END),
]
"""google-adk's resumable stream of ``_pipeline()`` (``_shape``d)."""


async def test_a_context_built_by_hand_records_checkpoints_only_when_resumable() -> None:
    plain = [None, ResumabilityConfig(is_resumable=False)]
    for config in plain:
        assert _shape(await _run_by_hand(_pipeline(), config)) == [("a", "from a"), ("b", "from b")]
    resumable = await _run_by_hand(_pipeline(), ResumabilityConfig(is_resumable=True))
    assert _shape(resumable) == RESUMABLE_PIPELINE


async def test_a_parallel_agent_by_hand_ends_once_every_branch_recorded_its_end() -> None:
    def both() -> ParallelAgent:
        return ParallelAgent(
            name="both",
            sub_agents=[
                LlmAgent(name="x", model=ScriptedModel(replies=["x"])),
                LlmAgent(name="y", model=ScriptedModel(replies=["y"])),
            ],
        )

    assert sorted(_shape(await _run_by_hand(both(), None))) == [("x", "x"), ("y", "y")]
    events = await _run_by_hand(both(), ResumabilityConfig(is_resumable=True))
    shaped = _shape(events)
    assert shaped[0] == ("both", {})
    assert shaped[-1] == ("both", END)
    assert sorted(shaped[1:-1]) == [("x", END), ("x", "x"), ("y", END), ("y", "y")]
    assert {e.branch for e in events[1:-1]} == {"both.x", "both.y"}


def _resumable_runner(agent: Any, service: BaseSessionService) -> Runner:
    app = App(name=APP, root_agent=agent, resumability_config=ResumabilityConfig(is_resumable=True))
    return Runner(app=app, session_service=service)


async def _turn(runner: Runner, text: str) -> list[Event]:
    return [
        event
        async for event in runner.run_async(user_id=USER, session_id="s1", new_message=user(text))
    ]


async def test_a_resumable_app_commits_google_adks_stream(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
    runner = _resumable_runner(_pipeline(), session_service)
    events = await _turn(runner, "go")
    assert _shape(events) == RESUMABLE_PIPELINE
    session = await stored(runner)
    assert [e.id for e in session.events[1:]] == [e.id for e in events]
    assert all(e.content is None for e in events if e.actions.end_of_agent)


async def test_a_transferring_agent_ends_before_its_target_runs(
    session_service: BaseSessionService,
) -> None:
    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
    helper = LlmAgent(name="helper", model=ScriptedModel(replies=["helped", "again"]))
    root = LlmAgent(
        name="root",
        model=ScriptedModel(replies=[function_call("transfer_to_agent", {"agent_name": "helper"})]),
        sub_agents=[helper],
    )
    runner = _resumable_runner(root, session_service)
    assert _shape(await _turn(runner, "go")) == [
        ("root", "call transfer_to_agent"),
        ("root", "response transfer_to_agent"),
        ("root", END),
        ("helper", "helped"),
        ("helper", END),
    ]
    # the conversation stays with the agent it was handed to
    assert _shape(await _turn(runner, "more")) == [("helper", "again"), ("helper", END)]


async def test_an_agent_waiting_on_a_long_running_call_records_no_end(
    session_service: BaseSessionService,
) -> None:
    from adk_runtime.tools.long_running_tool import LongRunningFunctionTool

    def start_job() -> None:
        """Start a job whose result arrives later."""

    await session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
    worker = LlmAgent(
        name="worker",
        model=ScriptedModel(replies=[function_call("start_job")]),
        tools=[LongRunningFunctionTool(func=start_job)],
    )
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[worker, LlmAgent(name="after", model=ScriptedModel(replies=["never"]))],
    )
    runner = _resumable_runner(pipeline, session_service)
    shaped = _shape(await _turn(runner, "go"))
    assert shaped[0] == ("pipeline", {"current_sub_agent": "worker"})
    assert ("worker", "call start_job") in shaped
    assert not [step for step in shaped if step[1] == END]  # paused: nobody ended
    assert not [step for step in shaped if step[0] == "after"]


async def test_an_events_output_round_trips(session_service: BaseSessionService) -> None:
    session = await session_service.create_session(app_name=APP, user_id=USER)
    output = {"answer": [1, 2.5, "three", None], "raw": b"\x00\xff"}
    event = Event(invocation_id="inv", author="node", output=output)
    await session_service.append_event(session, event)
    back = await session_service.get_session(app_name=APP, user_id=USER, session_id=session.id)
    assert back is not None
    assert back.events[-1].output == output
    assert Event(author="x").output is None
    content = types.Content(role="model", parts=[types.Part(text="hi")])
    assert Event(author="x", content=content).output is None
