"""Logs: one line per failed turn (session key and error type only); trace ids on records."""

from __future__ import annotations

import logging

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from adk_runtime.agents import LlmAgent
from adk_runtime.sessions import InMemorySessionService
from adk_runtime.telemetry import TraceIdsFilter
from adk_runtime.testing import ScriptedModel
from tests.llm.helpers import send, start

SECRET = "hunter2-in-the-message"


def _failing(*_: object) -> str:
    raise RuntimeError(f"the model saw {SECRET}")


async def test_failed_turn_is_one_line_without_payload(
    caplog: pytest.LogCaptureFixture, spans: InMemorySpanExporter
) -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(handler=_failing))
    runner = await start(agent, InMemorySessionService(), state={"token": SECRET})
    with caplog.at_level(logging.DEBUG), pytest.raises(RuntimeError):
        await send(runner, f"hello {SECRET}")
    lines = [r for r in caplog.records if r.name == "adk_runtime.turns"]
    assert [r.getMessage() for r in lines] == [
        "turn failed app=app user=u1 session=s1 error=RuntimeError"
    ]
    assert all(SECRET not in r.getMessage() for r in caplog.records)
    invocation = next(s for s in spans.get_finished_spans() if s.name == "invocation")
    assert invocation.status.status_code == trace.StatusCode.ERROR
    # the exception event on the span carries the message: only the type may be recorded
    for span in spans.get_finished_spans():
        for event in span.events:
            assert SECRET not in repr(dict(event.attributes or {}))


def test_trace_ids_on_log_records(spans: InMemorySpanExporter) -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
    TraceIdsFilter().filter(record)
    assert (record.trace_id, record.span_id) == ("", "")  # type: ignore[attr-defined]
    with trace.get_tracer("t").start_as_current_span("s") as current:
        TraceIdsFilter().filter(record)
    context = current.get_span_context()
    assert record.trace_id == format(context.trace_id, "032x")  # type: ignore[attr-defined]
    assert record.span_id == format(context.span_id, "016x")  # type: ignore[attr-defined]
