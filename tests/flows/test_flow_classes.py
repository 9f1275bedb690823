"""google-adk's flow classes and the rest of its processors, as faces over our one flow."""

from __future__ import annotations

import threading
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.genai import types
from pydantic import BaseModel

from adk_runtime.agents import InvocationContext, LlmAgent, SequentialAgent
from adk_runtime.agents import _auth as agents_auth
from adk_runtime.auth import auth_preprocessor
from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.code_executors.code_execution_utils import (
    CodeExecutionInput,
    CodeExecutionResult,
)
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.errors import UnsupportedFeatureError
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows import (
    _code_execution,
    _nl_planning,
    _output_schema_processor,
    base_llm_flow,
    request_confirmation,
)
from adk_runtime.flows.llm_flows._base_llm_processor import BaseLlmRequestProcessor
from adk_runtime.flows.llm_flows.auto_flow import AutoFlow
from adk_runtime.flows.llm_flows.base_llm_flow import BaseLlmFlow
from adk_runtime.flows.llm_flows.single_flow import SingleFlow
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.planners.built_in_planner import BuiltInPlanner
from adk_runtime.planners.plan_re_act_planner import PlanReActPlanner
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import FunctionTool
from adk_runtime.tools.set_model_response_tool import SetModelResponseTool
from tests.llm.helpers import send, start, stored
from tests.tools.test_tool_confirmation import answer, request_of


class City(BaseModel):
    name: str
    sunny: bool


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city} is sunny"


async def _context(agent: Any, events: list[Event] | None = None) -> InvocationContext:
    service = InMemorySessionService()
    session = await service.create_session(app_name="app", user_id="u")
    session.events.extend(events or [])
    return InvocationContext(
        invocation_id="inv", session=session, agent=agent, session_service=service
    )


async def _preprocess(flow: BaseLlmFlow, ctx: InvocationContext) -> LlmRequest:
    request = LlmRequest()
    events = [event async for event in flow._preprocess_async(ctx, request)]
    assert events == []
    return request


def _declared(request: LlmRequest) -> list[str]:
    return [
        declaration.name or ""
        for tool in request.config.tools or []
        if isinstance(tool, types.Tool)
        for declaration in tool.function_declarations or []
    ]


@pytest.mark.parametrize("flow_class", [SingleFlow, AutoFlow])
async def test_a_flow_builds_the_request_the_agent_sends(flow_class: type[SingleFlow]) -> None:
    built: list[tuple[LlmRequest, LlmRequest]] = []

    async def compare(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        by_hand = await _preprocess(flow_class(), callback_context._invocation_context)
        built.append((llm_request, by_hand))

    model = ScriptedModel(
        replies=[
            function_call("lookup", {"city": "Rome"}),
            function_call("set_model_response", {"name": "Rome", "sunny": True}),
        ]
    )
    helper = LlmAgent(name="helper", model=model, description="Helps.")
    agent = LlmAgent(
        name="guide",
        model=model,
        instruction="You guide visitors.",
        tools=[lookup],
        sub_agents=[helper],
        output_schema=City,
        planner=PlanReActPlanner(),
        before_model_callback=compare,
    )
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "weather in Rome?")

    assert events[-1].content is not None
    assert events[-1].content.parts is not None
    assert events[-1].content.parts[0].text == '{"name": "Rome", "sunny": true}'
    assert len(built) == 2
    for flow, by_hand in built:
        assert by_hand.model == flow.model
        assert by_hand.contents == flow.contents
        assert set(by_hand.tools_dict) == set(flow.tools_dict)
        assert sorted(_declared(by_hand)) == sorted(_declared(flow))
        flow_lines = str(flow.config.system_instruction).split("\n\n")
        assert sorted(str(by_hand.config.system_instruction).split("\n\n")) == sorted(flow_lines)
    assert {"lookup", "set_model_response", "transfer_to_agent"} <= set(built[0][1].tools_dict)


class _Marker(BaseLlmRequestProcessor):
    name = "marker"

    async def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        llm_request.config.labels = {"marked": "yes"}
        nothing: tuple[Event, ...] = ()
        for event in nothing:
            yield event


async def test_processors_are_found_and_moved_by_name() -> None:
    flow = SingleFlow()
    names = [p.name for p in flow._iter_request_processors()]
    assert names[0] == "basic"
    assert names[-2:] == ["toolset_auth", "agent_tools"]
    assert "agent_transfer" not in names
    assert [p.name for p in AutoFlow()._iter_request_processors()][-3] == "agent_transfer"

    planning = flow.remove_request_processor("nl_planning")
    assert planning is _nl_planning.request_processor
    flow.insert_request_processor_before("basic", planning)
    assert flow.request_processors[0] is planning
    old = flow.replace_request_processor(
        "output_schema", _output_schema_processor.request_processor
    )
    assert old is _output_schema_processor.request_processor
    assert flow.get_request_processor("agent_tools") is flow.tool_request_processors[1]
    flow.insert_request_processor_after("agent_tools", _Marker())
    assert flow.tool_request_processors[-1].name == "marker"
    request = await _preprocess(flow, await _context(LlmAgent(name="a", model=ScriptedModel())))
    assert request.config.labels == {"marked": "yes"}
    with pytest.raises(ValueError, match="No request processors are named 'nope'"):
        flow.get_request_processor("nope")
    with pytest.raises(ValueError, match="non-empty"):
        flow.get_request_processor("")


async def test_inserting_a_second_processor_of_a_name_is_refused() -> None:
    flow = SingleFlow()
    with pytest.raises(ValueError, match="already has a request processor named 'basic'"):
        flow.insert_request_processor_after("contents", flow.get_request_processor("basic"))


async def test_set_model_response_calls_give_the_structured_answer() -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(), output_schema=City, output_key="city")
    ctx = await _context(agent)
    request = LlmRequest()
    request.tools_dict[SetModelResponseTool.NAME] = SetModelResponseTool(City)
    call = Event(
        author="a",
        content=types.ModelContent(
            [function_call("set_model_response", {"name": "Oslo", "sunny": False})]
        ),
    )
    events = [
        event
        async for event in BaseLlmFlow()._postprocess_handle_function_calls_async(
            ctx, call, request
        )
    ]
    assert [e.get_function_responses()[0].name for e in events[:1]] == ["set_model_response"]
    assert events[1].content is not None
    assert events[1].content.parts is not None
    assert events[1].content.parts[0].text == '{"name": "Oslo", "sunny": false}'
    assert events[1].actions.state_delta == {"city": {"name": "Oslo", "sunny": False}}


async def test_run_live_is_refused() -> None:
    with pytest.raises(UnsupportedFeatureError):
        AutoFlow().run_live(await _context(LlmAgent(name="a", model=ScriptedModel())))


async def test_a_toolset_prefix_is_one_value_everywhere() -> None:
    assert (
        auth_preprocessor.TOOLSET_AUTH_CREDENTIAL_ID_PREFIX
        == base_llm_flow.TOOLSET_AUTH_CREDENTIAL_ID_PREFIX
        == agents_auth.TOOLSET_AUTH_CREDENTIAL_ID_PREFIX
    )


async def test_the_auth_step_does_nothing_for_other_agents_or_without_answers() -> None:
    seq = SequentialAgent(name="seq")
    events = [
        e
        async for e in auth_preprocessor.request_processor.run_async(
            await _context(seq), LlmRequest()
        )
    ]
    assert events == []
    agent = LlmAgent(name="a", model=ScriptedModel())
    said = [Event(author="user", content=types.UserContent("hi"))]
    events = [
        e
        async for e in auth_preprocessor.request_processor.run_async(
            await _context(agent, said), LlmRequest()
        )
    ]
    assert events == []


def transfer_money(to: str, amount: int) -> dict[str, Any]:
    """Send money to someone."""
    return {"sent": amount, "to": to}


async def test_the_confirmation_step_runs_a_confirmed_call() -> None:
    model = ScriptedModel(replies=[function_call("transfer_money", {"to": "ann", "amount": 5})])
    tool = FunctionTool(transfer_money, require_confirmation=True)
    agent = LlmAgent(name="bank", model=model, tools=[tool])
    runner = await start(agent, InMemorySessionService())
    asked = request_of(await send(runner, "pay ann 5"))
    session = await stored(runner)
    content = answer(asked, confirmed=True)
    session.events.append(Event(author="user", invocation_id=asked.invocation_id, content=content))
    ctx = InvocationContext(
        invocation_id=asked.invocation_id,
        session=session,
        agent=agent,
        session_service=runner.session_service,
    )
    events = [e async for e in request_confirmation.request_processor.run_async(ctx, LlmRequest())]
    (response,) = [r for e in events for r in e.get_function_responses()]
    assert response.name == "transfer_money"
    assert response.response == {"sent": 5, "to": "ann"}


class _Noting(BuiltInPlanner):
    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> list[types.Part] | None:
        callback_context.state["planned"] = True
        return [types.Part(text="rewritten")]


async def test_the_planning_steps_shape_the_request_and_rewrite_the_response() -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(), planner=PlanReActPlanner())
    ctx = await _context(agent)
    request = LlmRequest(contents=[types.ModelContent([types.Part(text="x", thought=True)])])
    async for _ in _nl_planning.request_processor.run_async(ctx, request):
        pass
    assert request.contents[0].parts is not None
    assert request.contents[0].parts[0].thought is None
    assert "/*PLANNING*/" in str(request.config.system_instruction)

    overriding = LlmAgent(
        name="b",
        model=ScriptedModel(),
        planner=_Noting(thinking_config=types.ThinkingConfig()),
    )
    response = LlmResponse(content=types.ModelContent("original"))
    ctx = await _context(overriding)
    events = [e async for e in _nl_planning.response_processor.run_async(ctx, response)]
    assert response.content is not None
    assert response.content.parts == [types.Part(text="rewritten")]
    assert [e.actions.state_delta for e in events] == [{"planned": True}]

    plain = LlmAgent(
        name="c",
        model=ScriptedModel(),
        planner=BuiltInPlanner(thinking_config=types.ThinkingConfig()),
    )
    response = LlmResponse(content=types.ModelContent("kept"))
    events = [
        e async for e in _nl_planning.response_processor.run_async(await _context(plain), response)
    ]
    assert events == []
    assert response.content == types.ModelContent("kept")


class _BlockingExecutor(BaseCodeExecutor):
    """An executor written for google-adk: a plain, blocking ``execute_code``."""

    threads: list[str] = []

    def execute_code(  # type: ignore[override]
        self, invocation_context: InvocationContext, code_execution_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        self.threads.append(threading.current_thread().name)
        return CodeExecutionResult(stdout=f"ran {code_execution_input.code}")


async def test_the_code_step_runs_a_blocking_executor_off_the_event_loop() -> None:
    executor = _BlockingExecutor()
    agent = LlmAgent(name="a", model=ScriptedModel(), code_executor=executor)
    response = LlmResponse(
        content=types.ModelContent("Let me see.\n```python\nprint(1)\n```\nmore text")
    )
    events = [
        e
        async for e in _code_execution.response_processor.run_async(await _context(agent), response)
    ]
    assert response.content is None
    code, result = events
    assert code.content is not None
    assert code.content.parts is not None
    assert code.content.parts[-1].executable_code is not None
    assert code.content.parts[-1].executable_code.code == "print(1)"
    assert result.content is not None
    assert result.content.parts is not None
    outcome = result.content.parts[0].code_execution_result
    assert outcome is not None
    assert outcome.output == "ran print(1)"
    assert executor.threads
    assert executor.threads[0] != threading.main_thread().name


async def test_an_agent_runs_a_blocking_executor_in_its_loop() -> None:
    model = ScriptedModel(replies=["```python\nprint(2)\n```", "It printed 2."])
    agent = LlmAgent(name="a", model=model, code_executor=_BlockingExecutor(threads=[]))
    runner = await start(agent, InMemorySessionService())
    events = await send(runner, "run it")
    results = [
        part.code_execution_result.output
        for event in events
        for part in (event.content.parts if event.content else None) or []
        if part.code_execution_result is not None
    ]
    assert results == ["ran print(2)"]
    assert events[-1].content is not None
    assert events[-1].content.parts == [types.Part(text="It printed 2.")]
