"""The model callbacks run in the model call's span, and a recovery goes through after-model."""

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
from adk_runtime.testing import ScriptedModel
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


async def start(agent: LlmAgent, seer: SpanSeer) -> Runner:
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
