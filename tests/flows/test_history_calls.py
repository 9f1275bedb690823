"""What the model is sent of the stored calls and responses, and of empty events.

Each scenario stores its history through the session service (every backend), then runs a
turn on the scripted model and reads the request the model got.
"""

from __future__ import annotations

from typing import Any

import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent
from adk_runtime.agents._llm_flow import conversation
from adk_runtime.agents._quoting import RETELLING_PREAMBLE, quote
from adk_runtime.events import Event, EventActions
from adk_runtime.events.event_actions import EventCompaction
from adk_runtime.runners import Runner
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel
from adk_runtime.tools import LongRunningFunctionTool
from tests.llm.helpers import APP, USER, flat, send, start, stored

# LiteLLM's own models make pydantic warn (its TypedDicts); nothing of ours.
pytestmark = pytest.mark.filterwarnings("ignore:.*`ReadOnly` qualifier:UserWarning")


def call_part(call_id: str, name: str = "lookup") -> types.Part:
    return types.Part(function_call=types.FunctionCall(id=call_id, name=name, args={}))


def response_part(call_id: str, result: str, name: str = "lookup") -> types.Part:
    return types.Part(
        function_response=types.FunctionResponse(id=call_id, name=name, response={"r": result})
    )


def event(author: str, role: str, *parts: types.Part, **fields: Any) -> Event:
    return Event(
        invocation_id=fields.pop("invocation_id", "inv-old"),
        author=author,
        content=types.Content(role=role, parts=list(parts)),
        **fields,
    )


async def with_history(agent: LlmAgent, service: BaseSessionService, events: list[Event]) -> Runner:
    """A Runner of ``agent`` whose session ("s1") already holds ``events``."""
    runner = await start(agent, service)
    session = await stored(runner)
    for item in events:
        await service.append_event(session, item)
    return runner


async def test_calls_cut_short_and_stray_responses_are_not_sent(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=["ok"])
    runner = await with_history(
        LlmAgent(name="bot", model=model),
        session_service,
        [
            event("user", "user", types.Part(text="first")),
            # A turn cut short: the second call was never answered.
            event("bot", "model", call_part("c1"), call_part("c2")),
            event("bot", "user", response_part("c1", "one")),
            # A response no call asked for (a hand-edited session).
            event("user", "user", response_part("ghost", "boo")),
        ],
    )
    await send(runner, "second")
    assert flat(model.requests[0].contents) == [
        "user:first",
        "call:c1",
        "response:c1=one",
        "user:second",
    ]
    # The stored events are unchanged.
    session = await stored(runner)
    assert [len(e.get_function_calls()) for e in session.events[:2]] == [0, 2]


async def test_events_with_nothing_to_show_are_not_sent(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=["ok"])
    runner = await with_history(
        LlmAgent(name="bot", model=model),
        session_service,
        [
            event("user", "user", types.Part(text="first")),
            event("bot", "model", types.Part(text="")),
            event("bot", "model", types.Part(text="pondering", thought=True)),
            event("bot", "model", types.Part(text="answer")),
        ],
    )
    await send(runner, "second")
    assert flat(model.requests[0].contents) == ["user:first", "model:answer", "user:second"]


async def test_a_long_running_answer_replaces_the_exchange_after_its_call(
    session_service: BaseSessionService,
) -> None:
    def start_job() -> dict[str, str]:
        """Start a job."""
        return {"r": "pending"}

    model = ScriptedModel(replies=["done it is"])
    agent = LlmAgent(name="bot", model=model, tools=[LongRunningFunctionTool(start_job)])
    runner = await with_history(
        agent,
        session_service,
        [
            event("user", "user", types.Part(text="go")),
            event(
                "bot",
                "model",
                call_part("job", "start_job"),
                long_running_tool_ids={"job"},
            ),
            event("bot", "user", response_part("job", "pending", "start_job")),
            event("bot", "model", types.Part(text="Still working on it.")),
        ],
    )
    answer = types.Content(role="user", parts=[response_part("job", "finished", "start_job")])
    await send(runner, answer)
    assert flat(model.requests[0].contents) == [
        "user:go",
        "call:job",
        "response:job=finished",
    ]


async def test_a_call_a_summary_covers_comes_back_before_its_late_answer(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=["thanks"])
    summary = types.Content(role="model", parts=[types.Part(text="summary so far")])
    runner = await with_history(
        LlmAgent(name="bot", model=model),
        session_service,
        [
            event("user", "user", types.Part(text="go"), timestamp=1.0),
            event(
                "bot",
                "model",
                call_part("job", "start_job"),
                call_part("quick", "peek"),
                long_running_tool_ids={"job"},
                timestamp=2.0,
            ),
            event("bot", "user", response_part("quick", "seen", "peek"), timestamp=3.0),
            Event(
                invocation_id="compactor",
                author="user",
                actions=EventActions(
                    compaction=EventCompaction(
                        start_timestamp=1.0, end_timestamp=3.0, compacted_content=summary
                    )
                ),
                timestamp=3.5,
            ),
            event(
                "user",
                "user",
                response_part("job", "finished", "start_job"),
                timestamp=4.0,
                invocation_id="inv-late",
            ),
        ],
    )
    await send(runner, "and now?")
    assert flat(model.requests[0].contents) == [
        "model:summary so far",
        "call:job",
        "call:quick",
        "response:quick=seen",
        "response:job=finished",
        "user:and now?",
    ]


def _history_with_minted_ids() -> list[Event]:
    return [
        event("user", "user", types.Part(text="go")),
        event("bot", "model", call_part("adk-1")),
        event("bot", "user", response_part("adk-1", "one")),
    ]


@pytest.mark.parametrize(
    ("model", "kept"),
    [
        ("gemini-2.5-flash", False),
        (ScriptedModel(), False),
        ("anthropic", True),
        ("litellm", True),
        ("openai-responses", True),
    ],
)
async def test_minted_call_ids_reach_the_models_that_pair_by_id(model: Any, kept: bool) -> None:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.sessions import InMemorySessionService

    if model == "anthropic":
        pytest.importorskip("anthropic")
        from adk_runtime.models.anthropic_llm import AnthropicLlm

        model = AnthropicLlm(model="claude-sonnet-4-5")
    elif model == "litellm":
        from adk_runtime.models.lite_llm import LiteLlm

        model = LiteLlm(model="openai/gpt-4o-mini")
    elif model == "openai-responses":
        from adk_runtime.labs.openai import OpenAIResponsesLlm

        model = OpenAIResponsesLlm(model="gpt-5")
    agent = LlmAgent(name="bot", model=model)
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id=USER)
    session.events = _history_with_minted_ids()
    ctx = InvocationContext(
        invocation_id="inv", agent=agent, session=session, session_service=service
    )
    labels = flat(conversation(agent, ctx))
    if kept:
        assert labels == ["user:go", "call:adk-1", "response:adk-1=one"]
    else:
        assert labels == ["user:go", "call:None", "response:None=one"]


def test_with_no_agent_named_no_event_is_retold_as_another_agents() -> None:
    """``contents._get_contents`` without an agent (as google-adk's own callers use it): every
    event is sent as it is, a summary as the summary, none as "For context" for someone."""
    from adk_runtime.flows.llm_flows import contents

    summary = types.Content(role="model", parts=[types.Part(text="summary of 1-2")])
    compaction = EventCompaction(start_timestamp=1.0, end_timestamp=2.0, compacted_content=summary)
    history = [
        event("helper", "model", types.Part(text="one"), timestamp=1.0),
        event("helper", "model", types.Part(text="two"), timestamp=2.0),
        Event(
            invocation_id="inv-c",
            author="compactor",
            content=summary,
            timestamp=2.5,
            actions=EventActions(compaction=compaction),
        ),
        event("user", "user", types.Part(text="three"), timestamp=3.0),
        event("helper", "model", types.Part(text="four"), timestamp=4.0),
    ]
    assert flat(contents._get_contents(None, history)) == [
        "model:summary of 1-2",
        "user:three",
        "model:four",
    ]
    # Named, the helper's events are another agent's to "root": retold as context.
    assert flat(contents._get_contents(None, history, "root")) == [
        "model:summary of 1-2",
        "user:three",
        f"user:{RETELLING_PREAMBLE}",
        f"user:[helper] said:\n{quote('four')}",
    ]
