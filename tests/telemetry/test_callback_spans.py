"""Model and tool callbacks run in their call's span; a recovery goes through after-model."""

from __future__ import annotations

from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from adk_runtime.agents import LlmAgent
from adk_runtime.apps import App
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.plugins import BasePlugin
from adk_runtime.runners import InMemoryRunner, Runner
from adk_runtime.testing import ScriptedModel, function_call
from tests.llm.helpers import APP, USER, send, texts


class SpanSeer(BasePlugin):
    """Records the current span in each model callback; optionally answers or recovers."""

    def __init__(self, *, answer: str | None = None, recover: str | None = None) -> None:
        super().__init__("span_seer")
        self.seen: dict[str, int] = {}
        self.after_saw: list[str] = []
        self._answer, self._recover = answer, recover

    def _see(self, hook: str) -> None:
        self.seen[hook] = trace.get_current_span().get_span_context().span_id

    async def before_model_callback(self, **kwargs: Any) -> LlmResponse | None:
        self._see("before")
        return (
            LlmResponse.model_validate({"content": _text(self._answer)}) if self._answer else None
        )

    async def after_model_callback(self, *, llm_response: LlmResponse, **kwargs: Any) -> None:
        self._see("after")
        parts = llm_response.content.parts if llm_response.content else None
        self.after_saw.append((parts[0].text or "") if parts else "")

    async def on_model_error_callback(self, **kwargs: Any) -> LlmResponse | None:
        self._see("error")
        return (
            LlmResponse.model_validate({"content": _text(self._recover)}) if self._recover else None
        )


async def start(agent: LlmAgent, seer: BasePlugin) -> Runner:
    runner = InMemoryRunner(app=App(name=APP, root_agent=agent, plugins=[seer]))
    await runner.session_service.create_session(app_name=APP, user_id=USER, session_id="s1")
    return runner


def _fail(request: LlmRequest) -> str:
    raise RuntimeError("backend down")


def _text(text: str | None) -> dict[str, Any]:
    return {"role": "model", "parts": [{"text": text}]}


def _model_span_ids(spans: InMemorySpanExporter) -> dict[int, dict[str, Any]]:
    return {
        span.context.span_id: dict(span.attributes or {})
        for span in spans.get_finished_spans()
        if span.name.startswith("generate_content") and span.context is not None
    }


async def test_before_and_after_see_the_model_calls_span(spans: InMemorySpanExporter) -> None:
    seer = SpanSeer()
    agent = LlmAgent(name="a", model=ScriptedModel(replies=["hello"]))
    runner = await start(agent, seer)
    spans.clear()
    assert texts(await send(runner, "hi")) == ["hello"]
    [(span_id, attributes)] = _model_span_ids(spans).items()
    assert seer.seen == {"before": span_id, "after": span_id}
    assert "adk.model.response_source" not in attributes


async def test_an_answer_from_before_model_is_marked_on_the_span(
    spans: InMemorySpanExporter,
) -> None:
    seer = SpanSeer(answer="from cache")
    model = ScriptedModel(replies=[])  # never called
    runner = await start(LlmAgent(name="a", model=model), seer)
    spans.clear()
    events = await send(runner, "hi")
    assert texts(events) == ["from cache"]
    [(span_id, attributes)] = _model_span_ids(spans).items()
    assert seer.seen == {"before": span_id}
    assert attributes["adk.model.response_source"] == "before_model_callback"
    assert attributes["adk.event.id"] == events[-1].id
    assert model.requests == []


async def test_a_recovered_error_goes_through_after_model_in_the_same_span(
    spans: InMemorySpanExporter,
) -> None:
    seer = SpanSeer(recover="recovered")
    runner = await start(LlmAgent(name="a", model=ScriptedModel(handler=_fail)), seer)
    spans.clear()
    assert texts(await send(runner, "hi")) == ["recovered"]
    [(span_id, attributes)] = _model_span_ids(spans).items()
    assert seer.seen == {"before": span_id, "error": span_id, "after": span_id}
    assert seer.after_saw == ["recovered"]
    assert attributes["adk.model.response_source"] == "on_model_error_callback"


def lookup(city: str) -> dict[str, str]:
    """Look up the weather."""
    if city == "Atlantis":
        raise LookupError("no such city")
    return {"weather": "sunny"}


class ToolSpanSeer(BasePlugin):
    """Records the current span in each tool callback; answers for Oslo, recovers errors."""

    def __init__(self) -> None:
        super().__init__("tool_span_seer")
        self.seen: dict[str, int] = {}

    def _see(self, hook: str) -> None:
        self.seen[hook] = trace.get_current_span().get_span_context().span_id

    async def before_tool_callback(self, *, tool_args: dict[str, Any], **kwargs: Any) -> Any:
        self._see("before")
        return {"weather": "cached"} if tool_args.get("city") == "Oslo" else None

    async def after_tool_callback(self, **kwargs: Any) -> None:
        self._see("after")

    async def on_tool_error_callback(self, **kwargs: Any) -> dict[str, str]:
        self._see("error")
        return {"weather": "unknown"}


async def _tool_span(
    city: str, spans: InMemorySpanExporter
) -> tuple[ToolSpanSeer, int, dict[str, Any]]:
    seer = ToolSpanSeer()
    model = ScriptedModel(replies=[function_call("lookup", {"city": city}), "done"])
    runner = await start(LlmAgent(name="a", model=model, tools=[lookup]), seer)
    spans.clear()
    await send(runner, "weather?")
    [tool_span] = [s for s in spans.get_finished_spans() if s.name == "execute_tool lookup"]
    assert tool_span.context is not None
    return seer, tool_span.context.span_id, dict(tool_span.attributes or {})


async def test_tool_callbacks_see_the_tool_calls_span(spans: InMemorySpanExporter) -> None:
    seer, span_id, attributes = await _tool_span("Rome", spans)
    assert seer.seen == {"before": span_id, "after": span_id}
    assert "adk.tool.response_source" not in attributes

    seer, span_id, attributes = await _tool_span("Oslo", spans)
    assert seer.seen == {"before": span_id, "after": span_id}
    assert attributes["adk.tool.response_source"] == "before_tool_callback"

    seer, span_id, attributes = await _tool_span("Atlantis", spans)
    assert seer.seen == {"before": span_id, "error": span_id, "after": span_id}
    assert attributes["adk.tool.response_source"] == "on_tool_error_callback"
