"""The spans a server keeps for its dev UI's trace views (needs the OpenTelemetry SDK).

Besides the spans, the recorder keeps the content of recent model and tool calls (see
:mod:`adk_runtime.telemetry._web_ui`), which it serves as the attributes google-adk's web
UI shows (``gcp.vertex.agent.llm_request`` …) and which no exporter ever sees.
"""

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
        max_content_chars: How much call content is kept, in characters (the oldest
            call's is dropped first).
    """

    def __init__(self, max_spans: int = 20_000, max_content_chars: int = 32_000_000) -> None:
        self._spans: collections.deque[ReadableSpan] = collections.deque(maxlen=max_spans)
        self._content: collections.OrderedDict[int, dict[str, str]] = collections.OrderedDict()
        self._content_chars = 0
        self._max_content_chars = max_content_chars
        self._lock = threading.Lock()

    def keep(self, span_id: int, name: str, value: str) -> None:
        """Keep ``value`` as the attribute ``name`` of span ``span_id`` (a call's content)."""
        with self._lock:
            kept = self._content.setdefault(span_id, {})
            self._content_chars += len(value) - len(kept.get(name, ""))
            kept[name] = value
            while self._content_chars > self._max_content_chars and self._content:
                _, dropped = self._content.popitem(last=False)
                self._content_chars -= sum(len(v) for v in dropped.values())

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
            content = dict(self._content)
        traces = {
            s.context.trace_id
            for s in spans
            if s.context is not None and (s.attributes or {}).get(SESSION_ATTRIBUTE) == session_id
        }
        return [
            _ui_span(s, content)
            for s in spans
            if s.context is not None and s.context.trace_id in traces
        ]

    def event_span(self, event_id: str) -> dict[str, Any] | None:
        """The attributes of the model call that made ``event_id`` (with its ids), or None."""
        with self._lock:
            spans = list(self._spans)
            content = dict(self._content)
        for span in reversed(spans):
            attributes = dict(span.attributes or {})
            if attributes.get(EVENT_ATTRIBUTE) == event_id and span.context is not None:
                attributes.update(content.get(span.context.span_id, {}))
                attributes["trace_id"] = span.context.trace_id
                attributes["span_id"] = span.context.span_id
                return attributes
        return None


def _ui_span(span: ReadableSpan, content: dict[int, dict[str, str]]) -> dict[str, Any]:
    assert span.context is not None
    attributes: dict[str, Any] = dict(span.attributes or {})
    attributes.update(content.get(span.context.span_id, {}))
    return {
        "name": span.name,
        "start_time": span.start_time,
        "end_time": span.end_time,
        "trace_id": span.context.trace_id,
        "span_id": span.context.span_id,
        "parent_span_id": span.parent.span_id if span.parent else None,
        "attributes": attributes,
        "logs": [],
    }
