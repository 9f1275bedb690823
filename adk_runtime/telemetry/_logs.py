"""Structured logging: trace and span ids on records, one line per failed turn."""

from __future__ import annotations

import logging
from typing import Any

from adk_runtime.telemetry._api import otel_api

_trace: Any = otel_api("trace")

_logger = logging.getLogger("adk_runtime.turns")


class TraceIdsFilter(logging.Filter):
    """Adds ``trace_id`` and ``span_id`` (hex, empty outside a span) to every record.

    Install it on a handler: ``handler.addFilter(TraceIdsFilter())`` and use
    ``%(trace_id)s %(span_id)s`` in the format.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        """Set the ids on ``record``; never drops it."""
        trace_id = span_id = ""
        if _trace is not None:
            context = _trace.get_current_span().get_span_context()
            if context.is_valid:
                trace_id = format(context.trace_id, "032x")
                span_id = format(context.span_id, "016x")
        record.trace_id = trace_id
        record.span_id = span_id
        return True


def log_failed_turn(app_name: str, user_id: str, session_id: str, error: BaseException) -> None:
    """Log one line for a failed turn: the session key and the error's type, never its text."""
    _logger.warning(
        "turn failed app=%s user=%s session=%s error=%s",
        app_name,
        user_id,
        session_id,
        type(error).__name__,
        extra={"error_type": type(error).__name__},
    )
