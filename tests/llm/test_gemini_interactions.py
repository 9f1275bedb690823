"""Gemini on the Interactions API, end to end: the real google-genai client, a stateful fake
API on loopback, the Runner on every session backend.

The interaction chain lives in the store: each model event keeps its ``interaction_id`` and
the agent's next request names it and sends only the new turn.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pydantic
import pytest
from google.genai import types

from adk_runtime.agents import LlmAgent, RunConfig, StreamingMode
from adk_runtime.flows.llm_flows.interactions_processor import request_processor
from adk_runtime.models import Gemini, LlmRequest, ServiceTier, interactions_utils
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from tests.llm.fake_gemini import FakeGemini, serving, text_body
from tests.llm.fake_interactions import call_step, text_step
from tests.llm.helpers import send, start, stored, texts
from tests.stores import Store, durable_params, fresh_store

FAST_RETRY = types.HttpRetryOptions(attempts=2, initial_delay=0.01, max_delay=0.02)


@pytest.fixture
async def fake(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[FakeGemini]:
    async with serving(monkeypatch) as server:
        yield server


def interacting(fake: FakeGemini, **kwargs: Any) -> Gemini:
    model = Gemini(
        model="gemini-3-flash",
        base_url=fake.base_url,
        retry_options=FAST_RETRY,
        use_interactions_api=True,
        **kwargs,
    )
    fake.clients.append(model)
    return model


def get_weather(city: str) -> dict[str, Any]:
    """Return the weather of a city."""
    return {"city": city, "sky": "clear"}


def user_texts(steps: list[dict[str, Any]]) -> list[str]:
    return [
        content["text"]
        for step in steps
        if step["type"] == "user_input"
        for content in step["content"]
    ]


async def test_a_conversation_is_one_interaction_chain_and_each_turn_sends_only_itself(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    api = fake.interactions
    api.turns += [[text_step("Hello! How can I help?")], [text_step("Paris.")]]
    agent = LlmAgent(name="guide", model=interacting(fake), instruction="Be brief.")
    runner = await start(agent, session_service)
    first = await send(runner, "hi")
    second = await send(runner, "capital of France?")
    assert texts(first + second) == ["Hello! How can I help?", "Paris."]
    opening, follow_up = api.created
    assert "previous_interaction_id" not in opening
    assert user_texts(opening["input"]) == ["hi"]
    assert opening["system_instruction"] == "Be brief."
    assert opening["model"] == "gemini-3-flash"
    # The second turn continues the first interaction and sends the new message alone.
    assert follow_up["previous_interaction_id"] == "interaction-1"
    assert follow_up["input"] == [
        {"type": "user_input", "content": [{"type": "text", "text": "capital of France?"}]}
    ]
    assert api.chain("interaction-2") == ["interaction-1", "interaction-2"]
    events = (await stored(runner)).events
    assert [(e.author, e.interaction_id) for e in events] == [
        ("user", None),
        ("guide", "interaction-1"),
        ("user", None),
        ("guide", "interaction-2"),
    ]
    assert events[1].usage_metadata is not None
    assert events[1].usage_metadata.total_token_count == 12


async def test_a_function_call_is_answered_on_its_interaction_by_call_id(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    api = fake.interactions
    api.turns += [
        [call_step("call-7", "get_weather", {"city": "Oslo"})],
        [text_step("Clear in Oslo.")],
    ]
    agent = LlmAgent(name="weather", model=interacting(fake), tools=[get_weather])
    runner = await start(agent, session_service)
    events = await send(runner, "weather in Oslo?")
    assert texts(events[-1:]) == ["Clear in Oslo."]
    call = events[0].get_function_calls()[0]
    assert (call.id, call.name, call.args) == ("call-7", "get_weather", {"city": "Oslo"})
    asked, answered = api.created
    tool = asked["tools"][0]
    assert (tool["type"], tool["name"]) == ("function", "get_weather")
    assert tool["parameters"]["required"] == ["city"]
    assert tool["parameters"]["properties"]["city"]["type"] == "string"
    # The result goes back on the call's interaction, named by the API's own call id.
    assert answered["previous_interaction_id"] == "interaction-1"
    assert answered["input"] == [
        {
            "type": "function_result",
            "name": "get_weather",
            "call_id": "call-7",
            "result": {"city": "Oslo", "sky": "clear"},
            "is_error": False,
        }
    ]
    assert api.stored["interaction-1"]["status"] == "requires_action"


async def test_streamed_replies_are_partial_events_and_the_stored_reply_carries_the_chain(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    api = fake.interactions
    api.turns += [
        [call_step("c1", "get_weather", {"city": "Lima"})],
        [text_step("Sunny in Lima.")],
        [text_step("You're welcome.")],
    ]
    agent = LlmAgent(name="weather", model=interacting(fake), tools=[get_weather])
    runner = await start(agent, session_service)
    sse = RunConfig(streaming_mode=StreamingMode.SSE)
    events = await send(runner, "weather in Lima?", run_config=sse)
    partial = [e for e in events if e.partial]
    # The call is announced as it starts, then its arguments stream in pieces.
    announced = [c for e in partial for c in e.get_function_calls()]
    assert [(c.name, c.args) for c in announced] == [("get_weather", None)] * 3
    assert "".join(a.string_value or "" for c in announced for a in c.partial_args or []) == (
        '{"city": "Lima"}'
    )
    assert {e.interaction_id for e in partial if e.get_function_calls()} == {"interaction-1"}
    replied = [e for e in partial if not e.get_function_calls()]
    assert texts(replied) == ["Sunny i", "n Lima."]  # the fake streams text in halves
    assert {e.interaction_id for e in replied} == {"interaction-2"}
    # The call's arguments came in two pieces and were put together before the tool ran.
    call, result, reply = [e for e in events if not e.partial]
    assert call.get_function_calls()[0].args == {"city": "Lima"}
    assert result.get_function_responses()[0].response == {"city": "Lima", "sky": "clear"}
    assert texts([reply]) == ["Sunny in Lima."]
    await send(runner, "thanks", run_config=sse)
    assert api.created[2]["previous_interaction_id"] == "interaction-2"
    assert api.created[2]["stream"] is True
    session = await stored(runner)
    assert not any(e.partial for e in session.events)
    assert texts(session.events) == [
        "weather in Lima?",
        "Sunny in Lima.",
        "thanks",
        "You're welcome.",
    ]
    assert [e.interaction_id for e in session.events if e.author == "weather"] == [
        "interaction-1",
        None,  # the tool's response event: the runtime's, not the model's
        "interaction-2",
        "interaction-3",
    ]


@pytest.fixture(params=durable_params())
async def store(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
    async with fresh_store(request.param, tmp_path) as opened:
        yield opened


async def test_the_chain_continues_after_a_restart_on_a_durable_store(
    fake: FakeGemini, store: Store
) -> None:
    api = fake.interactions
    api.turns += [[text_step("Noted: blue.")], [text_step("Blue.")]]
    before = store.open()
    try:
        runner = await start(LlmAgent(name="memo", model=interacting(fake)), before)
        await send(runner, "my colour is blue")
        await runner.close()
    finally:
        await before.close()
    # A new process: a new service on the same store, a new model and Runner.
    after = store.open()
    try:
        agent = LlmAgent(name="memo", model=interacting(fake))
        from adk_runtime.runners import Runner

        runner = Runner(app_name="app", agent=agent, session_service=after)
        assert texts(await send(runner, "my colour?")) == ["Blue."]
        await runner.close()
    finally:
        await after.close()
    assert api.created[1]["previous_interaction_id"] == "interaction-1"
    assert user_texts(api.created[1]["input"]) == ["my colour?"]


async def test_an_agent_continues_its_own_interaction_not_another_agents(
    fake: FakeGemini,
) -> None:
    api = fake.interactions
    api.turns += [[text_step("A here.")], [text_step("B here.")], [text_step("A again.")]]
    a = LlmAgent(name="a", model=interacting(fake))
    b = LlmAgent(name="b", model=interacting(fake))
    service = InMemorySessionService()
    runner_a = await start(a, service)
    from adk_runtime.runners import Runner

    runner_b = Runner(app_name="app", agent=b, session_service=service)
    await send(runner_a, "one")
    await send(runner_b, "two")
    await send(runner_a, "three")
    assert "previous_interaction_id" not in api.created[1]  # b's first interaction
    assert api.created[2]["previous_interaction_id"] == "interaction-1"  # a's, not b's


async def test_a_failed_interaction_is_an_error_event_and_is_not_continued(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    api = fake.interactions
    refused = {"error": {"code": 400, "status": "INVALID_ARGUMENT", "message": "bad tool"}}
    api.turns += [(400, refused), [text_step("Fine now.")]]
    runner = await start(LlmAgent(name="g", model=interacting(fake)), session_service)
    [error] = await send(runner, "hi")
    assert (error.error_code, error.error_message) == ("400", "bad tool")
    assert texts(await send(runner, "again")) == ["Fine now."]
    assert "previous_interaction_id" not in api.created[1]


async def test_service_tiers_reach_the_api_and_a_deferred_call_is_polled_to_its_end(
    fake: FakeGemini, session_service: BaseSessionService, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(interactions_utils, "POLL_INITIAL_DELAY_SECONDS", 0.01)
    api = fake.interactions
    api.turns += [[text_step("Fast.")], [text_step("Later.")]]
    runner = await start(LlmAgent(name="g", model=interacting(fake)), session_service)
    priority = RunConfig(service_tier=ServiceTier.PRIORITY)
    assert texts(await send(runner, "now", run_config=priority)) == ["Fast."]
    assert api.created[0]["service_tier"] == "priority"
    assert "background" not in api.created[0]
    deferred = RunConfig(service_tier="deferred")
    [event] = await send(runner, "whenever", run_config=deferred)
    assert texts([event]) == ["Later."]
    assert event.interaction_id == "interaction-2"
    assert api.created[1]["service_tier"] == "deferred"
    assert api.created[1]["background"] is True
    assert api.polls == ["interaction-2", "interaction-2"]  # in progress, then done


def test_a_deferred_run_cannot_stream() -> None:
    with pytest.raises(pydantic.ValidationError, match="deferred"):
        RunConfig(service_tier="deferred", streaming_mode=StreamingMode.SSE)
    request = LlmRequest(model="m", contents=[types.Content(role="user", parts=[])])
    with pytest.raises(ValueError, match="cannot stream"):
        interactions_utils.create_arguments(request, stream=True, service_tier="deferred")


async def test_a_tier_for_a_model_without_the_api_warns_once_per_invocation(
    fake: FakeGemini, session_service: BaseSessionService, caplog: pytest.LogCaptureFixture
) -> None:
    fake.replies += [
        (
            200,
            {
                "candidates": [
                    {
                        "content": {
                            "role": "model",
                            "parts": [
                                {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}}
                            ],
                        },
                        "finishReason": "STOP",
                    }
                ]
            },
        ),
        (200, text_body("Warm.")),
    ]
    model = Gemini(model="gemini-2.5-flash", base_url=fake.base_url, retry_options=FAST_RETRY)
    fake.clients.append(model)
    agent = LlmAgent(name="plain", model=model, tools=[get_weather])
    runner = await start(agent, session_service)
    with caplog.at_level(logging.WARNING, logger="adk_runtime.agents._interactions"):
        await send(runner, "Rome?", run_config=RunConfig(service_tier="flex"))
    warnings = [r for r in caplog.records if "service_tier" in r.getMessage()]
    assert len(warnings) == 1  # two model calls, one warning
    assert "plain" in warnings[0].getMessage()
    assert all("service_tier" not in body for _, body in fake.requests)


async def test_the_processor_fills_a_request_as_the_flow_does(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    from adk_runtime.agents import InvocationContext

    fake.interactions.turns.append([text_step("One.")])
    agent = LlmAgent(name="p", model=interacting(fake))
    runner = await start(agent, session_service)
    await send(runner, "first")
    session = await stored(runner)
    ctx = InvocationContext(
        session_service=session_service,
        invocation_id="inv-x",
        agent=agent,
        session=session,
        run_config=RunConfig(service_tier="flex"),
    )
    request = LlmRequest()
    async for _ in request_processor.run_async(ctx, request):
        pytest.fail("the processor yields no event")
    assert (request.previous_interaction_id, request.service_tier) == ("interaction-1", "flex")


async def test_the_flow_classes_build_the_chained_request_the_agent_sends(
    fake: FakeGemini, session_service: BaseSessionService
) -> None:
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.flows.llm_flows.single_flow import SingleFlow

    built: list[tuple[LlmRequest, LlmRequest]] = []

    async def compare(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        by_hand = LlmRequest()
        ctx = callback_context._invocation_context
        assert [e async for e in SingleFlow()._preprocess_async(ctx, by_hand)] == []
        built.append((llm_request, by_hand))

    fake.interactions.turns += [[text_step("One.")], [text_step("Two.")]]
    agent = LlmAgent(name="g", model=interacting(fake), before_model_callback=compare)
    runner = await start(agent, session_service)
    await send(runner, "first")
    await send(runner, "second")
    (_, first), (sent, by_hand) = built
    assert first.previous_interaction_id is None
    assert by_hand.previous_interaction_id == sent.previous_interaction_id == "interaction-1"
    assert by_hand.contents == sent.contents  # the current turn only
    assert [c.parts[0].text for c in by_hand.contents if c.parts] == ["second"]
