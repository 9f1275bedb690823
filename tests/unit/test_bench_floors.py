"""The concurrency benchmark's raw-driver floors still run our statements (a smoke run).

The floors call the session store's own compiled statements and scripts on bare drivers, so
a change of their shape breaks ``make bench`` silently unless something runs them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from bench import bench_concurrency as concurrency
from bench.common import Report, postgres_database


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
