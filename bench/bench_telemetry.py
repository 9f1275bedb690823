"""Telemetry overhead: append/s and Runner events/s with OpenTelemetry absent, off and on.

Each mode runs in its own subprocess (a process's OpenTelemetry providers are set once):

- ``absent``: ``opentelemetry`` cannot be imported (the baseline: every helper returns at once);
- ``off``: the API is installed, no SDK is configured (the default of an application that
  does not opt in): this must cost under 3% against ``absent``;
- ``on``: the SDK with a ``BatchSpanProcessor`` (to an exporter that drops the spans) and a
  meter provider with a metric reader: what tracing really costs.

The modes run interleaved, several rounds each; the best round of each is kept.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from bench.common import Report, quick

MODES = ("absent", "off", "on")
APPENDS = 2_000
RUNNER_EVENTS = 1_000


async def run(report: Report) -> None:
    """Measure every mode in subprocesses and report the rates and the ratios."""
    rounds = 2 if quick() else 5
    best: dict[str, dict[str, float]] = {mode: {} for mode in MODES}
    for _ in range(rounds):
        for mode in MODES:
            out = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "bench.bench_telemetry", mode],
                capture_output=True,
                text=True,
                check=True,
                timeout=600,
            )
            figures: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
            for metric, value in figures.items():
                best[mode][metric] = max(best[mode].get(metric, 0.0), value)
    for metric in ("append/s", "Runner events/s"):
        for mode in MODES:
            report.add("telemetry", "memory", metric, best[mode][metric], "ops/s", impl=mode)
        for mode in ("off", "on"):  # a share of the baseline's rate: off must stay >= 0.97
            share = best[mode][metric] / best["absent"][metric]
            report.add("telemetry", "memory", f"{metric} {mode}/absent", share, "x", impl="ratio")


def _configure(mode: str) -> None:
    if mode == "absent":
        sys.modules["opentelemetry"] = None  # type: ignore[assignment]
        return
    if mode == "off":
        return
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )

    class _Drop(SpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(_Drop(), max_queue_size=1 << 16))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))


async def _measure() -> dict[str, Any]:
    from google.genai import types

    from adk_runtime.events import Event
    from adk_runtime.runners import Runner
    from adk_runtime.sessions import InMemorySessionService
    from bench.bench_core import _Yielder  # pyright: ignore[reportPrivateUsage]

    service = InMemorySessionService()
    warm = await service.create_session(app_name="bench", user_id="u")
    for _ in range(APPENDS // 4):
        await service.append_event(warm, Event(author="user"))
    session = await service.create_session(app_name="bench", user_id="u")
    start = time.perf_counter()
    for _ in range(APPENDS):
        await service.append_event(session, Event(author="user"))
    append_rate = APPENDS / (time.perf_counter() - start)

    runner = Runner(app_name="bench", agent=_Yielder(name="bot"), session_service=service)
    fresh = await service.create_session(app_name="bench", user_id="u")
    message = types.Content(role="user", parts=[types.Part(text="go")])
    start = time.perf_counter()
    n = 0
    async for _ in runner.run_async(user_id="u", session_id=fresh.id, new_message=message):
        n += 1
    return {"append/s": append_rate, "Runner events/s": n / (time.perf_counter() - start)}


if __name__ == "__main__":
    _configure(sys.argv[1])
    print(json.dumps(asyncio.run(_measure())))
