"""The concurrency benchmark's raw-driver floors still run our statements (a smoke run).

The floors call the session store's own compiled statements and scripts on bare drivers, so
a change of their shape breaks ``make bench`` silently unless something runs them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bench import bench_concurrency as concurrency
from bench.common import QUICK_ENV, Report, Row, postgres_database

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _tiny(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(concurrency, "LEVELS", (1, 4))
    monkeypatch.setattr(concurrency, "_total", lambda: 16)


def _rates(report: Report, backend: str) -> list[float]:
    return [
        row.value
        for row in report.rows
        if row.backend == backend and row.impl == "raw_driver" and row.metric.endswith("events/s")
    ]


@pytest.mark.postgres
async def test_postgres_floor_runs_the_compiled_append() -> None:
    report = Report()
    async with postgres_database("floor") as url:
        await concurrency._migrate(url)
        await concurrency._floor_postgres(report, url)
    assert len(_rates(report, "postgres")) == 2
    assert min(_rates(report, "postgres")) > 0


@pytest.mark.sqlite
async def test_sqlite_floor_and_ours_run() -> None:
    report = Report()
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'floor.db'}"
        await concurrency._migrate(url)
        await concurrency._ours(report, "sqlite", url)  # every conversation is checked after
        await concurrency._floor_sqlite(report, url)
    assert len(_rates(report, "sqlite")) == 2
    assert report.value("concurrency", "sqlite", "C=4 events/s", "adk_runtime")


@pytest.mark.redis
async def test_redis_floor_runs() -> None:
    report = Report()
    await concurrency._floor_redis(report)
    assert len(_rates(report, "redis")) == 2


def test_a_backend_runs_in_a_child_process_and_its_rows_come_back(tmp_path: Path) -> None:
    # What `python -m bench concurrency` does per backend (quick: one round of 512 events).
    out = tmp_path / "rows.json"
    env = {**os.environ, QUICK_ENV: "1"}
    command = [sys.executable, "-m", "bench.bench_concurrency", "memory", str(out)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [Row(**row) for row in json.loads(out.read_text())]
    rates = {r.metric: r.value for r in rows if r.impl == "adk_runtime" and "events/s" in r.metric}
    # The child runs the real levels (this module's fixture shrinks them here only).
    assert set(rates) == {f"C={c} events/s" for c in (1, 16, 64, 256)}
    assert min(rates.values()) > 0
