"""Whether telemetry is on, asked of a fresh process (a provider can be set once per process).

Only the OpenTelemetry API's public getters are read: no SDK, the API's no-op providers and
an SDK set in code or named by the environment each give the answer a user expects.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[2]

_PROBE = """
import json, sys
from opentelemetry import metrics, trace
from adk_runtime import telemetry

answers = [[telemetry.tracing_enabled(), telemetry.metrics_enabled()]]
if sys.argv[1] == "noop":
    trace.set_tracer_provider(trace.NoOpTracerProvider())
    metrics.set_meter_provider(metrics.NoOpMeterProvider())
elif sys.argv[1] == "sdk":
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider
    trace.set_tracer_provider(TracerProvider())
    metrics.set_meter_provider(MeterProvider())
answers.append([telemetry.tracing_enabled(), telemetry.metrics_enabled()])
print(json.dumps(answers))
"""


def _answers(mode: str, **env: str) -> list[list[bool]]:
    environ = {**os.environ, "PYTHONPATH": str(_ROOT), **env}
    for name in ("OTEL_PYTHON_TRACER_PROVIDER", "OTEL_PYTHON_METER_PROVIDER"):
        if name not in env:
            environ.pop(name, None)
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, mode],
        capture_output=True,
        text=True,
        check=True,
        env=environ,
        timeout=120,
    )
    answers: list[list[bool]] = json.loads(out.stdout.strip().splitlines()[-1])
    return answers


@pytest.mark.parametrize(
    ("mode", "after"),
    [("none", [False, False]), ("noop", [False, False]), ("sdk", [True, True])],
)
def test_telemetry_is_on_only_once_an_sdk_provider_is_set(mode: str, after: list[bool]) -> None:
    before, later = _answers(mode)
    assert before == [False, False]
    assert later == after


def test_an_sdk_named_by_the_environment_turns_telemetry_on() -> None:
    before, _ = _answers(
        "none",
        OTEL_PYTHON_TRACER_PROVIDER="sdk_tracer_provider",
        OTEL_PYTHON_METER_PROVIDER="sdk_meter_provider",
    )
    assert before == [True, True]
