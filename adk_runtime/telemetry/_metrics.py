"""Metrics through the OpenTelemetry metrics API (no-ops until an SDK meter provider is set).

Instruments are created once, on the API's proxy meter, which forwards to the SDK's meter
provider once the application sets one.
"""

from __future__ import annotations

from typing import Any

from adk_runtime.telemetry._api import otel_api

_metrics: Any = otel_api("metrics")  # None: every metric is a no-op


class _Instruments:
    def __init__(self, meter: Any) -> None:
        self.append_latency = meter.create_histogram(
            "adk.store.append.duration", unit="s", description="Latency of one session append."
        )
        self.appends = meter.create_counter(
            "adk.store.appends", unit="{append}", description="Session appends by outcome."
        )
        self.turn_events = meter.create_histogram(
            "adk.turn.events", unit="{event}", description="Events committed per turn."
        )
        self.latency = meter.create_histogram(
            "adk.operation.duration", unit="s", description="Model and tool call latency."
        )
        self.active = meter.create_up_down_counter(
            "adk.invocations.active", unit="{invocation}", description="Running invocations."
        )


_instruments: _Instruments | None = (
    None if _metrics is None else _Instruments(_metrics.get_meter("adk_runtime"))
)


_enabled = False


def metrics_enabled() -> bool:
    """True when an OpenTelemetry SDK meter provider is configured (kept once true).

    Asked through the API's public getter. The API package itself defines only stand-ins
    (the proxy it hands out before a provider is set, and the no-op provider); any other
    provider is an SDK's.
    """
    global _enabled
    if _enabled:
        return True
    if _metrics is None:
        return False
    provider = _metrics.get_meter_provider()
    _enabled = not type(provider).__module__.startswith(_metrics.__name__)
    return _enabled


def record_append(backend: str, seconds: float, outcome: str, db_system: str | None = None) -> None:
    """Count one append (``committed``, ``idempotent``, ``conflict``, ``error``) and its latency.

    ``db_system`` is OpenTelemetry's ``db.system.name`` of the store's database, recorded as
    an attribute when given (an in-process store has none).
    """
    if _instruments is None or not metrics_enabled():
        return
    labels = {"adk.store.backend": backend, "adk.outcome": outcome}
    if db_system is not None:
        labels["db.system.name"] = db_system
    _instruments.append_latency.record(seconds, labels)
    _instruments.appends.add(1, labels)


def record_latency(kind: str, name: str, seconds: float) -> None:
    """Record the latency of one model call (``kind="model"``) or tool call (``"tool"``)."""
    if _instruments is not None and metrics_enabled():
        _instruments.latency.record(seconds, {"adk.kind": kind, "adk.name": name})


def record_turn(events: int | None = None, active: int = 0) -> None:
    """Record a turn's committed events (at its end) or a change of running invocations."""
    if _instruments is None or not metrics_enabled():
        return
    if active:
        _instruments.active.add(active)
    if events is not None:
        _instruments.turn_events.record(events)
