"""google-adk's request processors, run by hand, build what the LLM flow sends the model."""

from __future__ import annotations

import pytest
from google.genai import types

from adk_runtime.agents import InvocationContext, LlmAgent, RunConfig
from adk_runtime.agents._quoting import RETELLING_PREAMBLE, quote
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows import agent_transfer, basic, contents, instructions
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import send, start

PROCESSORS = (
    basic.request_processor,
    instructions.request_processor,
    contents.request_processor,
    agent_transfer.request_processor,
)


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city} is sunny"


async def _by_hand(ctx: InvocationContext) -> LlmRequest:
    request = LlmRequest()
    for processor in PROCESSORS:
        events = [event async for event in processor.run_async(ctx, request)]
        assert events == []
    return request


@pytest.mark.parametrize("static", [None, "Be brief."])
async def test_the_processors_build_the_request_the_flow_sends(static: str | None) -> None:
    built: list[tuple[LlmRequest, LlmRequest]] = []

    async def compare(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        by_hand = await _by_hand(callback_context._invocation_context)
        built.append((llm_request, by_hand))

    model = ScriptedModel(
        replies=["hello", function_call("lookup", {"city": "Rome"}), "Rome is sunny"]
    )
    helper = LlmAgent(name="helper", model=model, description="Helps.")
    agent = LlmAgent(
        name="guide",
        model=model,
        instruction="You guide visitors of {city}.",
        static_instruction=static,
        tools=[lookup],
        sub_agents=[helper],
        generate_content_config=types.GenerateContentConfig(temperature=0.2),
        before_model_callback=compare,
    )
    runner = await start(agent, InMemorySessionService(), state={"city": "Rome"})
    await send(runner, "hi")
    config = RunConfig(labels={"team": "a"})
    await send(runner, "weather?", run_config=config)

    assert len(built) == 3
    for flow, by_hand in built:
        assert by_hand.model == flow.model
        assert by_hand.contents == flow.contents
        assert by_hand.config.system_instruction == flow.config.system_instruction
        assert by_hand.config.temperature == 0.2
        # the model call adds the agent's label after the before-model callbacks
        sent = dict(flow.config.labels or {})
        assert sent.pop("adk_agent_name") == "guide"
        assert (by_hand.config.labels or {}) == sent
    assert built[-1][1].config.labels == {"team": "a"}
    assert "helper" in str(built[0][1].config.system_instruction)


async def _context(agent: LlmAgent, events: list[Event] | None = None) -> InvocationContext:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    session.events.extend(events or [])
    return InvocationContext(
        invocation_id="inv", session=session, agent=agent, session_service=service
    )


async def test_basic_merges_http_options_already_on_the_request_over_the_agents() -> None:
    agent = LlmAgent(
        name="a",
        model=ScriptedModel(),
        generate_content_config=types.GenerateContentConfig(
            http_options=types.HttpOptions(timeout=1000, headers={"A": "agent", "B": "agent"})
        ),
    )
    request = LlmRequest()
    request.config.http_options = types.HttpOptions(timeout=5, headers={"B": "call"})
    async for _ in basic.request_processor.run_async(await _context(agent), request):
        pass
    assert request.model == "scripted"
    assert request.config.http_options is not None
    assert request.config.http_options.timeout == 5
    assert request.config.http_options.headers == {"A": "agent", "B": "call"}
    assert agent.generate_content_config is not None
    assert agent.generate_content_config.http_options is not None
    assert agent.generate_content_config.http_options.timeout == 1000  # the agent's is a copy


async def test_contents_places_instruction_contents_before_the_latest_user_turn() -> None:
    agent = LlmAgent(name="a", model=ScriptedModel())
    said = [
        Event(author="user", content=types.UserContent("first")),
        Event(author="a", content=types.ModelContent("answer")),
        Event(author="user", content=types.UserContent("second")),
    ]
    note = types.UserContent("a note")
    request = LlmRequest(contents=[note])
    async for _ in contents.request_processor.run_async(await _context(agent, said), request):
        pass
    assert request.contents == [
        types.UserContent("first"),
        types.ModelContent("answer"),
        note,
        types.UserContent("second"),
    ]


async def test_contents_skips_another_agents_turn_that_has_nothing_to_tell() -> None:
    agent = LlmAgent(name="a", model=ScriptedModel())
    said = [
        Event(author="user", content=types.UserContent("hello")),
        Event(
            author="other",
            content=types.ModelContent(
                [types.Part(text="", thought=False), types.Part(text="hmm", thought=True)]
            ),
        ),
        Event(author="other", content=types.ModelContent("I can help.")),
    ]
    request = LlmRequest()
    async for _ in contents.request_processor.run_async(await _context(agent, said), request):
        pass
    assert [content.parts for content in request.contents] == [
        [types.Part(text="hello")],
        [
            types.Part(text=RETELLING_PREAMBLE),
            types.Part(text=f"[other] said:\n{quote('I can help.')}"),
        ],
    ]


async def test_contents_keeps_the_text_sent_with_a_late_function_response() -> None:
    agent = LlmAgent(name="a", model=ScriptedModel())
    call = types.FunctionCall(id="c1", name="job", args={})

    def answer(result: str, *text: str) -> Event:
        response = types.FunctionResponse(id="c1", name="job", response={"r": result})
        parts = [types.Part(function_response=response), *(types.Part(text=t) for t in text)]
        return Event(author="user", content=types.UserContent(parts))

    said = [
        Event(author="user", content=types.UserContent("start")),
        Event(author="a", content=types.ModelContent([types.Part(function_call=call)])),
        answer("pending", "started"),
        Event(author="a", content=types.ModelContent("working")),
        answer("done", "finished"),
    ]
    request = LlmRequest()
    async for _ in contents.request_processor.run_async(await _context(agent, said), request):
        pass
    merged = request.contents[2]
    assert isinstance(merged, types.UserContent)  # the response event's own content type
    parts = merged.parts or []
    assert [part.text for part in parts] == [None, "started", "finished"]
    assert parts[0].function_response is not None
    assert parts[0].function_response.response == {"r": "done"}


async def test_agent_transfer_offers_the_tool_only_when_there_are_targets() -> None:
    alone = LlmAgent(name="alone", model=ScriptedModel())
    request = LlmRequest()
    async for _ in agent_transfer.request_processor.run_async(await _context(alone), request):
        pass
    assert request.config.system_instruction is None
    assert request.tools_dict == {}

    helper = LlmAgent(name="helper", model=ScriptedModel(), description="Helps.")
    lead = LlmAgent(name="lead", model=ScriptedModel(), sub_agents=[helper])
    async for _ in agent_transfer.request_processor.run_async(await _context(lead), request):
        pass
    assert "transfer_to_agent" in request.tools_dict
    assert "`helper`: Helps." in str(request.config.system_instruction)


def test_transfer_targets_are_the_agents_own() -> None:
    helper = LlmAgent(name="helper", model=ScriptedModel())
    peer = LlmAgent(name="peer", model=ScriptedModel(), disallow_transfer_to_parent=True)
    LlmAgent(name="root", model=ScriptedModel(), sub_agents=[helper, peer])
    assert [a.name for a in agent_transfer._get_transfer_targets(helper)] == ["root", "peer"]
    assert [a.name for a in agent_transfer._get_transfer_targets(peer)] == ["helper"]


async def test_a_processor_refuses_an_agent_that_is_not_an_llm_agent() -> None:
    from adk_runtime.agents import SequentialAgent

    ctx = await _context(LlmAgent(name="a", model=ScriptedModel()))
    ctx.agent = SequentialAgent(name="seq")
    with pytest.raises(TypeError, match="LlmAgent"):
        async for _ in basic.request_processor.run_async(ctx, LlmRequest()):
            pass
