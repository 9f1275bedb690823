"""The span around one summary of event compaction (``compact_events <trigger>``).

``tracer`` is the OpenTelemetry API's tracer of ``adk_runtime`` (a no-op stand-in when the
``otel`` extra is not installed). Compaction is rare (once per window or threshold), so the
span is started on every summary; its attributes are built only when it records.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from adk_runtime.agents._compaction import DueRange
from adk_runtime.core._compaction_config import BaseEventsSummarizer, EventsCompactionConfig
from adk_runtime.events import Event

__all__ = ["SummarySpan", "summary_span", "tracer"]


class _NoSpan:
    def is_recording(self) -> bool:
        return False


class _NoTracer:
    """Stands in for a tracer when the OpenTelemetry API is not installed."""

    @contextlib.contextmanager
    def start_as_current_span(self, name: str, *args: Any, **kwargs: Any) -> Iterator[_NoSpan]:
        del name, args, kwargs
        yield _NoSpan()


def _tracer() -> Any:
    try:
        from opentelemetry import trace
    except ImportError:  # the otel extra is not installed
        return _NoTracer()
    return trace.get_tracer("adk_runtime")


tracer: Any = _tracer()
"""The tracer of compaction spans (google-adk's ``apps.compaction.tracer``)."""


class SummarySpan:
    """What the compaction span records: the summary's outcome."""

    def __init__(self, current: Any) -> None:
        self._span = current

    def failed(self, exc: Exception) -> None:
        """The summarizer raised ``exc``: the span ends in error (its type only, no text)."""
        if not self._span.is_recording():
            return
        from opentelemetry.trace import Status, StatusCode

        self._span.set_attribute("error.type", type(exc).__name__)
        self._span.set_status(Status(StatusCode.ERROR, type(exc).__name__))

    def summarized(self, summary: Event | None) -> None:
        """The summary to commit (None: there is none)."""
        if summary is None or not self._span.is_recording():
            return
        compaction = summary.actions.compaction
        self._span.set_attribute("gen_ai.compaction.result_event_id", summary.id)
        if compaction is not None:
            self._span.set_attribute(
                "gen_ai.compaction.start_timestamp", compaction.start_timestamp
            )
            self._span.set_attribute("gen_ai.compaction.end_timestamp", compaction.end_timestamp)


@contextlib.contextmanager
def summary_span(
    config: EventsCompactionConfig,
    summarizer: BaseEventsSummarizer,
    due: DueRange,
    session_id: str | None,
) -> Iterator[SummarySpan]:
    """A ``compact_events <trigger>`` span around writing the summary of ``due``.

    Its attributes: the session id, the trigger, the summarizer's class, how many events the
    summary covers and the config's settings; then the id and range of the summary made.
    Never the events' content.
    """
    with tracer.start_as_current_span(f"compact_events {due.trigger}") as current:
        if current.is_recording():
            attributes: dict[str, str | int] = {
                "gen_ai.operation.name": "compact_events",
                "gen_ai.compaction.trigger": due.trigger,
                "gen_ai.compaction.summarizer_type": type(summarizer).__name__,
                "gen_ai.compaction.event_count": len(due.events),
            }
            if session_id:
                attributes["gen_ai.conversation.id"] = session_id
            settings = {
                "token_threshold": config.token_threshold,
                "event_retention_size": config.event_retention_size,
                "compaction_interval": config.compaction_interval,
                "overlap_size": config.overlap_size,
            }
            for key, value in settings.items():
                if value is not None:
                    attributes[f"gen_ai.compaction.{key}"] = value
            current.set_attributes(attributes)
        yield SummarySpan(current)
