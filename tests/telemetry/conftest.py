"""One OpenTelemetry SDK for the run: an in-memory span exporter and metric reader.

The SDK's providers can be set once per process, so they are set on first use and the
exporter is cleared before each test.
"""

from __future__ import annotations

import pytest
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

_EXPORTER = InMemorySpanExporter()
_READER = InMemoryMetricReader()


def _install() -> None:
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        trace.set_tracer_provider(provider)
    if not isinstance(metrics.get_meter_provider(), MeterProvider):
        metrics.set_meter_provider(MeterProvider(metric_readers=[_READER]))


@pytest.fixture
def spans() -> InMemorySpanExporter:
    """The finished spans of this test."""
    _install()
    _EXPORTER.clear()
    return _EXPORTER


@pytest.fixture
def metric_reader() -> InMemoryMetricReader:
    """The SDK's metric reader (cumulative: compare before and after)."""
    _install()
    return _READER
