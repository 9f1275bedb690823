"""Configure the OpenTelemetry SDK for a server: metrics for ``/metrics``, spans for the UI."""

from __future__ import annotations

from typing import Any


def install_metrics() -> Any:
    """Set an SDK meter provider read by ``/metrics``; return its :class:`PrometheusText`.

    When the application already set a meter provider, a reader cannot be added to it:
    ``ConfigurationError`` says so.
    """
    from opentelemetry import metrics
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    from adk_runtime.errors import ConfigurationError
    from adk_runtime.telemetry._prometheus import PrometheusText

    if type(metrics.get_meter_provider()).__name__ != "_ProxyMeterProvider":
        raise ConfigurationError("A meter provider is already set; --metrics needs to set its own.")
    reader = InMemoryMetricReader()
    metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
    return PrometheusText(reader)


def install_span_recorder() -> Any:
    """Record finished spans in memory for the trace routes; return the :class:`SpanRecorder`.

    The recorder is added to the SDK tracer provider the application set (with
    ``OTEL_*`` exporters of its own), or to a new one; it also keeps the content of the
    process's model and tool calls, which no span carries.
    """
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    from adk_runtime.telemetry._recorder import SpanRecorder
    from adk_runtime.telemetry._web_ui import add_content_store

    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    recorder = SpanRecorder()
    provider.add_span_processor(SimpleSpanProcessor(recorder))
    add_content_store(recorder)  # the calls' content, for this server's dev UI only
    return recorder
