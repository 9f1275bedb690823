"""Shared pieces of the benchmarks: timing, percentiles and the report.

Every benchmark module ``bench/bench_<topic>.py`` defines ``async def run(report: Report)``
and adds rows with :meth:`Report.add`. ``python -m bench`` runs them all (or the ones named
on the command line), prints one table and writes ``bench/results/report.md`` and
``bench/results/report.json`` with the machine and the versions.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import statistics
import time
from collections.abc import Awaitable, Callable
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


@dataclasses.dataclass
class Row:
    """One measured figure: ``suite`` / ``backend`` / ``metric`` for one ``impl``."""

    suite: str
    backend: str
    metric: str
    impl: str
    value: float
    unit: str
    note: str = ""


@dataclasses.dataclass
class Report:
    rows: list[Row] = dataclasses.field(default_factory=list)

    def add(
        self,
        suite: str,
        backend: str,
        metric: str,
        value: float,
        unit: str,
        *,
        impl: str = "adk_runtime",
        note: str = "",
    ) -> None:
        row = Row(suite, backend, metric, impl, value, unit, note)
        self.rows.append(row)
        print(f"  {suite:10} {backend:9} {metric:38} {impl:14} {value:12.3f} {unit} {note}")

    def value(self, suite: str, backend: str, metric: str, impl: str) -> float | None:
        for row in self.rows:
            if (row.suite, row.backend, row.metric, row.impl) == (suite, backend, metric, impl):
                return row.value
        return None

    def ratio(
        self,
        suite: str,
        backend: str,
        metric: str,
        ours: str,
        theirs: str,
        *,
        higher_is_better: bool,
    ) -> None:
        """Add a ``ratio`` row: how many times better ``ours`` is than ``theirs``."""
        a = self.value(suite, backend, metric, ours)
        b = self.value(suite, backend, metric, theirs)
        if a is None or b is None or a == 0 or b == 0:
            return
        times = a / b if higher_is_better else b / a
        self.add(suite, backend, f"{metric} vs {theirs}", times, "x", impl="ratio")


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


async def time_each(count: int, op: Callable[[int], Awaitable[Any]]) -> list[float]:
    """Run ``op(i)`` ``count`` times and return each call's duration in milliseconds."""
    samples: list[float] = []
    for i in range(count):
        start = time.perf_counter()
        await op(i)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def add_latency(
    report: Report, suite: str, backend: str, metric: str, samples_ms: list[float], impl: str
) -> None:
    """Add p50, p99 and ops/s rows for a list of per-call durations."""
    report.add(suite, backend, f"{metric} p50", percentile(samples_ms, 50), "ms", impl=impl)
    report.add(suite, backend, f"{metric} p99", percentile(samples_ms, 99), "ms", impl=impl)
    total_s = sum(samples_ms) / 1000
    if total_s > 0:
        report.add(suite, backend, f"{metric} rate", len(samples_ms) / total_s, "ops/s", impl=impl)


def median_ms(samples_ms: list[float]) -> float:
    return statistics.median(samples_ms)


def environment() -> dict[str, Any]:
    versions = {}
    for name in [
        "adk-runtime",
        "google-adk",
        "google-genai",
        "sqlalchemy",
        "asyncpg",
        "aiosqlite",
        "redis",
        "pydantic",
    ]:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "versions": versions,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def write_report(report: Report) -> Path:
    RESULTS.mkdir(exist_ok=True)
    env = environment()
    (RESULTS / "report.json").write_text(
        json.dumps(
            {"environment": env, "rows": [dataclasses.asdict(r) for r in report.rows]}, indent=2
        )
    )
    lines = [
        "# adk_runtime benchmark report",
        "",
        f"Python {env['python']} on {env['platform']} ({env['cpus']} CPUs), {env['time']}.",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in env["versions"].items() if v),
        "",
        "| suite | backend | metric | impl | value | unit | note |",
        "|---|---|---|---|---:|---|---|",
    ]
    for r in report.rows:
        lines.append(
            f"| {r.suite} | {r.backend} | {r.metric} | {r.impl} "
            f"| {r.value:.3f} | {r.unit} | {r.note} |"
        )
    path = RESULTS / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def google_adk_available() -> bool:
    try:
        metadata.version("google-adk")
    except metadata.PackageNotFoundError:
        return False
    return True
