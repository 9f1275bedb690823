"""OpenTelemetry spans and metrics of the loop, the model, the tools and the stores.

Everything here goes through the OpenTelemetry *API* (the ``otel`` extra). Without it, or
while the application has configured no SDK, every helper is a no-op that builds no
attributes: see :func:`adk_runtime.telemetry._tracing.tracing_enabled`.
"""

from adk_runtime.telemetry._calls import ModelCall, ToolCall, model_span, tool_span
from adk_runtime.telemetry._logs import TraceIdsFilter, log_failed_turn
from adk_runtime.telemetry._metrics import (
    metrics_enabled,
    record_append,
    record_latency,
    record_turn,
)
from adk_runtime.telemetry._setup import install_metrics, install_span_recorder
from adk_runtime.telemetry._tracing import span, store_span, tracing_enabled
from adk_runtime.telemetry._turn import Turn, turn


def telemetry_enabled() -> bool:
    """True when an SDK tracer provider or meter provider is configured."""
    return tracing_enabled() or metrics_enabled()


__all__ = [
    "ModelCall",
    "ToolCall",
    "TraceIdsFilter",
    "Turn",
    "install_metrics",
    "install_span_recorder",
    "log_failed_turn",
    "metrics_enabled",
    "model_span",
    "record_append",
    "record_latency",
    "record_turn",
    "span",
    "store_span",
    "telemetry_enabled",
    "tool_span",
    "tracing_enabled",
    "turn",
]
