"""``/metrics``: the OpenTelemetry metrics of this process as Prometheus text.

The SDK's :class:`InMemoryMetricReader` collects the instruments (cumulative); each scrape
turns its data into prometheus-client metric families and renders them with
``generate_latest``. Needs the ``metrics`` extra.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from opentelemetry.sdk.metrics.export import (
    Histogram,
    InMemoryMetricReader,
    Sum,
)
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _name(name: str, unit: str | None) -> str:
    base = re.sub(r"[^a-zA-Z0-9_]", "_", name)
    return f"{base}_seconds" if unit == "s" else base


def _label(key: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_]", "_", key)


class PrometheusText:
    """Renders what ``reader`` collects as Prometheus text (a prometheus-client collector).

    Args:
        reader: The SDK metric reader registered on the meter provider.
    """

    def __init__(self, reader: InMemoryMetricReader) -> None:
        self._reader = reader
        self._registry = CollectorRegistry(auto_describe=False)
        self._registry.register(self)

    def render(self) -> bytes:
        """The current values, in the Prometheus text exposition format."""
        return generate_latest(self._registry)

    def collect(self) -> Iterator[Metric]:
        """The collector protocol of prometheus-client."""
        data = self._reader.get_metrics_data()
        if data is None:
            return
        for resource in data.resource_metrics:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    yield from _families(metric)


def _families(metric: Any) -> Iterator[Metric]:
    name = _name(metric.name, metric.unit)
    points = list(metric.data.data_points)
    keys = sorted({_label(k) for p in points for k in p.attributes})
    if isinstance(metric.data, Histogram):
        family = HistogramMetricFamily(name, metric.description, labels=keys)
        for p in points:
            labels = _values(p.attributes, keys)
            cumulative, buckets = 0, []
            for bound, count in zip(p.explicit_bounds, p.bucket_counts, strict=False):
                cumulative += count
                buckets.append((repr(float(bound)), cumulative))
            buckets.append(("+Inf", p.count))
            family.add_metric(labels, buckets, p.sum)
        yield family
    elif isinstance(metric.data, Sum) and metric.data.is_monotonic:
        counter = CounterMetricFamily(name, metric.description, labels=keys)
        for p in points:
            counter.add_metric(_values(p.attributes, keys), p.value)
        yield counter
    else:
        gauge = GaugeMetricFamily(name, metric.description, labels=keys)
        for p in points:
            gauge.add_metric(_values(p.attributes, keys), p.value)
        yield gauge


def _values(attributes: Any, keys: list[str]) -> list[str]:
    by_label = {_label(k): str(v) for k, v in attributes.items()}
    return [by_label.get(k, "") for k in keys]
