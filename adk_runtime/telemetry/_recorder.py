"""The spans a server keeps for its dev UI's trace views (needs the OpenTelemetry SDK)."""

from __future__ import annotations

import collections
import threading
from collections.abc import Sequence
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

SESSION_ATTRIBUTE = "gen_ai.conversation.id"
EVENT_ATTRIBUTE = "adk.event.id"


class SpanRecorder(SpanExporter):
    """Keeps the last ``max_spans`` finished spans in memory, looked up by session or event.

    Args:
        max_spans: How many spans are kept (the oldest are dropped first).
    """

    def __init__(self, max_spans: int = 20_000) -> None:
        self._spans: collections.deque[ReadableSpan] = collections.deque(maxlen=max_spans)
        self._lock = threading.Lock()

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        """Keep ``spans``."""
        with self._lock:
            self._spans.extend(spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        """Nothing to release."""

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        """Nothing is buffered."""
        return True

    def session_spans(self, session_id: str) -> list[dict[str, Any]]:
        """Every kept span of the traces that touched ``session_id``, oldest first."""
        with self._lock:
            spans = list(self._spans)
        traces = {
            s.context.trace_id
            for s in spans
            if s.context is not None and (s.attributes or {}).get(SESSION_ATTRIBUTE) == session_id
        }
        return [
            _ui_span(s) for s in spans if s.context is not None and s.context.trace_id in traces
        ]

    def event_span(self, event_id: str) -> dict[str, Any] | None:
        """The attributes of the model call that made ``event_id`` (with its ids), or None."""
        with self._lock:
            spans = list(self._spans)
        for span in reversed(spans):
            attributes = dict(span.attributes or {})
            if attributes.get(EVENT_ATTRIBUTE) == event_id and span.context is not None:
                attributes["trace_id"] = span.context.trace_id
                attributes["span_id"] = span.context.span_id
                return attributes
        return None


def _ui_span(span: ReadableSpan) -> dict[str, Any]:
    assert span.context is not None
    return {
        "name": span.name,
        "start_time": span.start_time,
        "end_time": span.end_time,
        "trace_id": span.context.trace_id,
        "span_id": span.context.span_id,
        "parent_span_id": span.parent.span_id if span.parent else None,
        "attributes": dict(span.attributes or {}),
        "logs": [],
    }
