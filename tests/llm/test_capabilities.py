"""Model capabilities: the flow asks the model whether it pairs a response schema with tools."""

from __future__ import annotations

from typing import Any

import pydantic
import pytest

from adk_runtime.agents import LlmAgent
from adk_runtime.models import BaseLlm, FallbackModel, Gemini, LiteLlm, LlmCapabilities
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.sessions import BaseSessionService, InMemorySessionService
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import send, start, stored, texts


class Forecast(pydantic.BaseModel):
    city: str
    celsius: int


class PairingModel(ScriptedModel):
    """A scripted model that declares it takes a response schema and tools together."""

    @property
    def capabilities(self) -> LlmCapabilities:
        return LlmCapabilities(
            **super().capabilities.model_dump() | {"output_schema_and_tools": True}
        )


def lookup(city: str) -> dict[str, Any]:
    """Look up the weather of a city."""
    return {"city": city, "celsius": 4}


def declared(request: LlmRequest) -> list[str]:
    return [d.name or "" for t in request.config.tools or [] for d in t.function_declarations or []]  # type: ignore[union-attr]


async def test_a_model_that_pairs_them_gets_the_schema_and_the_tools(
    session_service: BaseSessionService,
) -> None:
    model = PairingModel(
        replies=[function_call("lookup", {"city": "Oslo"}), '{"city": "Oslo", "celsius": 4}']
    )
    agent = LlmAgent(
        name="a", model=model, tools=[lookup], output_schema=Forecast, output_key="forecast"
    )
    runner = await start(agent, session_service)
    events = await send(runner, "weather in Oslo?")
    for request in model.requests:
        assert declared(request) == ["lookup"]  # no set_model_response
        schema = request.config.response_json_schema or request.config.response_schema
        assert schema is not None
        assert request.config.response_mime_type == "application/json"
    assert texts(events) == ['{"city": "Oslo", "celsius": 4}']
    assert (await stored(runner)).state["forecast"] == {"city": "Oslo", "celsius": 4}


async def test_a_model_that_does_not_answers_through_set_model_response() -> None:
    model = ScriptedModel(
        replies=[function_call("set_model_response", {"city": "Oslo", "celsius": 4})]
    )
    assert model.capabilities == LlmCapabilities(output_schema_and_tools=False)
    agent = LlmAgent(
        name="a", model=model, tools=[lookup], output_schema=Forecast, output_key="forecast"
    )
    runner = await start(agent, InMemorySessionService())
    await send(runner, "weather?")
    assert sorted(declared(model.requests[0])) == ["lookup", "set_model_response"]
    assert model.requests[0].config.response_schema is None
    assert model.requests[0].config.response_json_schema is None
    assert (await stored(runner)).state["forecast"] == {"city": "Oslo", "celsius": 4}


@pytest.mark.parametrize(("vertex", "pairs"), [("1", True), ("0", False)])
def test_gemini_pairs_them_on_vertex_ai_only(
    vertex: str, pairs: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", vertex)
    monkeypatch.delenv("GOOGLE_GENAI_USE_ENTERPRISE", raising=False)
    assert Gemini(model="gemini-2.5-flash").capabilities.output_schema_and_tools is pairs


def test_a_model_class_that_declares_nothing_is_guessed_by_name_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Plain(BaseLlm):
        pass

    monkeypatch.setenv("GOOGLE_GENAI_USE_VERTEXAI", "1")
    with pytest.warns(FutureWarning, match="override BaseLlm.capabilities"):
        assert Plain(model="gemini-2.5-pro").capabilities.output_schema_and_tools
    assert not Plain(model="my-model").capabilities.output_schema_and_tools  # no warning


@pytest.mark.parametrize(
    ("model", "pairs"),
    [
        ("openai/gpt-4o", True),
        ("vertex_ai/gemini-2.5-flash", True),
        ("gemini/gemini-2.5-flash", False),
        ("anthropic/claude-sonnet-4-20250514", False),
        ("ollama/llama3", False),
        ("no-such-provider/thing", False),
    ],
)
def test_lite_llm_asks_litellm_about_the_routed_model(model: str, pairs: bool) -> None:
    assert LiteLlm(model=model).capabilities.output_schema_and_tools is pairs


def test_a_fallback_model_pairs_them_only_when_every_model_does() -> None:
    pairing, plain = PairingModel(), ScriptedModel()
    assert FallbackModel(models=[pairing, PairingModel()]).capabilities.output_schema_and_tools
    assert not FallbackModel(models=[pairing, plain]).capabilities.output_schema_and_tools


def test_capabilities_are_a_frozen_snapshot_of_known_names() -> None:
    capabilities = LlmCapabilities(output_schema_and_tools=True)
    with pytest.raises(pydantic.ValidationError):
        capabilities.output_schema_and_tools = False  # type: ignore[misc]
    with pytest.raises(pydantic.ValidationError, match="output_schema_and_tool"):
        LlmCapabilities(output_schema_and_tool=True)  # type: ignore[call-arg]
