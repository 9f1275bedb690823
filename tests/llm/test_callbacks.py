"""Agent, model and tool callbacks: state writes land on the right event; short-circuits."""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_runtime.agents import CallbackContext, LlmAgent
from adk_runtime.models import LlmRequest, LlmResponse
from adk_runtime.sessions import BaseSessionService
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools import BaseTool, ToolContext
from tests.llm.helpers import send, start, stored, texts


def lookup(city: str) -> str:
    """Look up the weather."""
    return f"sunny in {city}"


async def test_model_callbacks_write_state_on_model_event(
    session_service: BaseSessionService,
) -> None:
    def before(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        callback_context.state["before"] = len(llm_request.contents)

    async def after(callback_context: CallbackContext, llm_response: LlmResponse) -> None:
        callback_context.state["after"] = llm_response.content.parts[0].text  # type: ignore[union-attr,index]

    agent = LlmAgent(
        name="a",
        model=ScriptedModel(replies=["hello"]),
        before_model_callback=before,
        after_model_callback=[after],
    )
    runner = await start(agent, session_service)
    events = await send(runner, "hi")
    assert len(events) == 1
    assert events[0].actions.state_delta == {"before": 1, "after": "hello"}
    assert (await stored(runner)).state == {"before": 1, "after": "hello"}


async def test_before_model_short_circuits(session_service: BaseSessionService) -> None:
    model = ScriptedModel(replies=[])

    def cached(callback_context: CallbackContext, llm_request: LlmRequest) -> LlmResponse:
        return LlmResponse(content=types.Content(role="model", parts=[types.Part(text="cached")]))

    def never(callback_context: CallbackContext, llm_request: LlmRequest) -> None:
        raise AssertionError("the first callback's answer ends the chain")

    runner = await start(
        LlmAgent(name="a", model=model, before_model_callback=[cached, never]), session_service
    )
    events = await send(runner, "hi")
    assert texts(events) == ["cached"]
    assert model.requests == []


async def test_after_model_replaces_response(session_service: BaseSessionService) -> None:
    def censor(callback_context: CallbackContext, llm_response: LlmResponse) -> LlmResponse:
        return LlmResponse(
            content=types.Content(role="model", parts=[types.Part(text="[redacted]")])
        )

    runner = await start(
        LlmAgent(name="a", model=ScriptedModel(replies=["secret"]), after_model_callback=censor),
        session_service,
    )
    events = await send(runner, "hi")
    assert texts(events) == ["[redacted]"]
    assert texts((await stored(runner)).events) == ["hi", "[redacted]"]


async def test_tool_callbacks(session_service: BaseSessionService) -> None:
    calls: list[str] = []

    def before_tool(tool: BaseTool, args: dict[str, Any], tool_context: ToolContext) -> Any:
        calls.append(f"before {tool.name} {args}")
        tool_context.state["checked"] = tool_context.function_call_id
        if args.get("city") == "Mars":
            return {"result": "no weather on Mars"}
        return None

    async def after_tool(
        tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, tool_response: Any
    ) -> Any:
        calls.append(f"after {tool_response}")
        tool_context.state["user:last_city"] = args["city"]
        raw = tool_response["result"] if isinstance(tool_response, dict) else tool_response
        return {"result": str(raw).upper()}

    model = ScriptedModel(
        replies=[
            [function_call("lookup", {"city": "Mars"}, id="c1")],
            [function_call("lookup", {"city": "Oslo"}, id="c2")],
            "done",
        ]
    )
    agent = LlmAgent(
        name="a",
        model=model,
        tools=[lookup],
        before_tool_callback=before_tool,
        after_tool_callback=after_tool,
    )
    runner = await start(agent, session_service)
    events = await send(runner, "weather")
    mars, oslo = events[1], events[3]
    assert mars.get_function_responses()[0].response == {"result": "NO WEATHER ON MARS"}
    assert oslo.get_function_responses()[0].response == {"result": "SUNNY IN OSLO"}
    assert mars.actions.state_delta == {"checked": "c1", "user:last_city": "Mars"}
    assert oslo.actions.state_delta == {"checked": "c2", "user:last_city": "Oslo"}
    assert calls == [
        "before lookup {'city': 'Mars'}",
        "after {'result': 'no weather on Mars'}",
        "before lookup {'city': 'Oslo'}",
        "after sunny in Oslo",
    ]
    session = await stored(runner)
    assert session.state["user:last_city"] == "Oslo"
    assert session.state["checked"] == "c2"


async def test_agent_callbacks_short_circuit_and_write_state(
    session_service: BaseSessionService,
) -> None:
    model = ScriptedModel(replies=["from the model"])

    def gate(callback_context: CallbackContext) -> types.Content | None:
        callback_context.state["gate"] = "seen"
        if callback_context.state.get("closed"):
            return types.Content(role="model", parts=[types.Part(text="closed today")])
        return None

    def sign(callback_context: CallbackContext) -> types.Content:
        return types.Content(role="model", parts=[types.Part(text="-- signed")])

    agent = LlmAgent(name="a", model=model, before_agent_callback=gate, after_agent_callback=sign)
    runner = await start(agent, session_service, state={"closed": True})
    events = await send(runner, "hi")
    assert texts(events) == ["closed today"]
    assert events[0].actions.state_delta == {"gate": "seen"}
    assert model.requests == []

    runner2 = await start(agent, session_service, session_id="s2")
    events = await send(runner2, "hi", session_id="s2")
    assert texts(events) == ["from the model", "-- signed"]
    assert events[0].actions.state_delta == {"gate": "seen"}
