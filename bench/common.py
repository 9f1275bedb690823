"""Shared pieces of the benchmarks: timing, percentiles and the report.

Every benchmark module ``bench/bench_<topic>.py`` defines ``async def run(report: Report)``
and adds rows with :meth:`Report.add`. ``python -m bench`` runs them all (or the ones named
on the command line), prints one table and writes ``bench/results/report.md`` and
``bench/results/report.json`` with the machine, the versions and a per-backend summary
(``bench/summary.py`` says which metric names it picks up). ``--quick`` (:func:`quick`) asks
modules for fewer iterations; use :func:`scaled` for counts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import platform
import statistics
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"
POSTGRES_SERVER = os.environ.get(
    "ADK_RUNTIME_TEST_POSTGRES_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
)
QUICK_ENV = "ADK_RUNTIME_BENCH_QUICK"


def quick() -> bool:
    """True under ``python -m bench --quick``: measure fewer iterations."""
    return os.environ.get(QUICK_ENV) == "1"


def scaled(count: int, minimum: int = 50) -> int:
    """``count`` iterations, or a fifth of them (at least ``minimum``) under ``--quick``."""
    return max(minimum, count // 5) if quick() else count


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
        "cpu_model": _cpu_model(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average": _load_average(),
        "quick": quick(),
        "versions": versions,
        "servers": _server_versions(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _server_versions() -> dict[str, str | None]:
    """Versions of the PostgreSQL and Redis servers the backends benchmark against."""
    import shutil
    import subprocess

    found: dict[str, str | None] = {}
    for name, argv in {"postgres": ["psql", "--version"], "redis": ["redis-server", "-v"]}.items():
        if shutil.which(argv[0]) is None:
            found[name] = None
            continue
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
        found[name] = done.stdout.strip()[:80] or None
    return found


def write_report(report: Report, errors: dict[str, str] | None = None) -> Path:
    from bench.summary import markdown, summarize

    RESULTS.mkdir(exist_ok=True)
    env = environment()
    summary = summarize(report.rows)
    (RESULTS / "report.json").write_text(
        json.dumps(
            {
                "environment": env,
                "summary": [dataclasses.asdict(line) for line in summary],
                "errors": errors or {},
                "rows": [dataclasses.asdict(r) for r in report.rows],
            },
            indent=2,
        )
    )
    lines = [
        "# adk_runtime benchmark report",
        "",
        f"Python {env['python']} on {env['platform']}, {env['cpu_model']} ({env['cpus']} CPUs,"
        f" load {env['load_average']}), {env['time']}{' (--quick)' if env['quick'] else ''}.",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in env["versions"].items() if v),
        "Servers: " + ", ".join(f"{k}: {v}" for k, v in env["servers"].items() if v),
        "",
        *markdown(summary),
    ]
    if errors:
        lines += ["## Failed benchmark modules", ""]
        lines += [f"- `{topic}`: {message}" for topic, message in errors.items()]
        lines.append("")
    lines += [
        "## All figures",
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


async def best_turn_rate(
    open_service: Callable[[], Awaitable[Any]],
    make_runner: Callable[[Any], Any],
    message: Callable[[int], Any],
    *,
    units_per_turn: int,
    sessions: int = 5,
    turns: int = 20,
    rounds: int = 3,
    app: str = "bench",
) -> float:
    """The best of ``rounds`` rates of units per second over ``sessions`` times ``turns`` turns.

    Each round opens a fresh service, makes a runner of it, creates the sessions, then sends
    ``message(turn)`` to each session in turn and drains the events; the service is closed
    after the round (when it has ``close``). Works for our Runner and google-adk's alike.
    """
    best = 0.0
    for _ in range(rounds):
        service = await open_service()
        runner = make_runner(service)
        ids = []
        for s in range(sessions):
            session = await service.create_session(app_name=app, user_id="u", session_id=f"s{s}")
            ids.append(session.id)
        start = time.perf_counter()
        for turn in range(turns):
            for session_id in ids:
                async for _ in runner.run_async(
                    user_id="u", session_id=session_id, new_message=message(turn)
                ):
                    pass
        best = max(best, sessions * turns * units_per_turn / (time.perf_counter() - start))
        close = getattr(service, "close", None)
        if close is not None:
            await close()
    return best


StoreFactory = Callable[[], Awaitable[Any]]


def local_store_pairs(prefix: str) -> list[tuple[str, StoreFactory, StoreFactory]]:
    """``(name, ours, google-adk's)`` session-service factories: in memory, and on SQLite
    files (a fresh one per call) when aiosqlite is installed."""
    import importlib.util
    import tempfile

    async def ours_memory() -> Any:
        from adk_runtime.sessions import InMemorySessionService

        return InMemorySessionService()

    async def adk_memory() -> Any:
        from google.adk.sessions import InMemorySessionService as AdkInMemory

        return AdkInMemory()

    pairs: list[tuple[str, StoreFactory, StoreFactory]] = [("memory", ours_memory, adk_memory)]
    if importlib.util.find_spec("aiosqlite") is None:
        return pairs
    tmp = Path(tempfile.mkdtemp(prefix=f"bench-{prefix}-"))
    counter = iter(range(1_000_000))

    async def ours_sqlite() -> Any:
        from adk_runtime.sessions import session_service_from_url

        return session_service_from_url(f"sqlite+aiosqlite:///{tmp}/ours{next(counter)}.db")

    async def adk_sqlite() -> Any:
        from google.adk.sessions import DatabaseSessionService

        return DatabaseSessionService(f"sqlite+aiosqlite:///{tmp}/adk{next(counter)}.db")

    pairs.append(("sqlite", ours_sqlite, adk_sqlite))
    return pairs


async def compare_rates(
    report: Report,
    topic: str,
    metric: str,
    unit: str,
    prefix: str,
    rate: Callable[[StoreFactory, Callable[[Any], Any]], Awaitable[float]],
    ours_runner: Callable[[Any], Any],
    adk_runner: Callable[[Any], Any],
) -> None:
    """Report ``rate`` of our runner and of google-adk's on each local store, and the ratio."""
    for name, ours, adk in local_store_pairs(prefix):
        report.add(topic, name, metric, await rate(ours, ours_runner), unit)
        if not google_adk_available():
            print("  google-adk is not installed (make bench installs the bench extra); skipped")
            continue
        report.add(topic, name, metric, await rate(adk, adk_runner), unit, impl="google-adk")
        report.ratio(topic, name, metric, "adk_runtime", "google-adk", higher_is_better=True)


def adk_scripted_model(reply: Callable[[list[Any]], Any]) -> Any:
    """A google-adk ``BaseLlm`` answering each request with the part ``reply(contents)`` gives
    (google-adk's counterpart of our ``ScriptedModel(handler=...)``, for the bench extra)."""
    from google.adk.models import BaseLlm as AdkBaseLlm
    from google.adk.models.llm_response import LlmResponse as AdkLlmResponse
    from google.genai import types

    class AdkScripted(AdkBaseLlm):  # type: ignore[misc]
        async def generate_content_async(
            self, llm_request: Any, stream: bool = False
        ) -> AsyncIterator[Any]:
            part = reply(llm_request.contents)
            yield AdkLlmResponse(content=types.Content(role="model", parts=[part]))

    return AdkScripted(model="scripted")


def google_adk_available() -> bool:
    try:
        metadata.version("google-adk")
    except metadata.PackageNotFoundError:
        return False
    return True


@contextlib.asynccontextmanager
async def postgres_database(tag: str) -> AsyncIterator[str]:
    """Create an empty PostgreSQL database for one benchmark, yield its URL, drop it after."""
    import asyncpg
    from sqlalchemy.engine import make_url

    name = f"adk_bench_{tag}_{uuid.uuid4().hex[:8]}"
    server = make_url(POSTGRES_SERVER)
    admin = await asyncpg.connect(
        server.set(drivername="postgresql").render_as_string(hide_password=False)
    )
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()


EMULATOR_NOTE = "Spanner emulator: its throughput is not Spanner's"
"""The note on every Spanner figure: the emulator is one process running one read-write
transaction at a time (the others abort and are retried), so only its round trips and its
correctness say something about Cloud Spanner."""


@contextlib.asynccontextmanager
async def spanner_database(tag: str) -> AsyncIterator[str]:
    """Start the Cloud Spanner emulator, create an empty database on it, yield its URL.

    The emulator is started as the tests start it (``tests/spanner_support.py``: a free
    loopback port, the test instance) and stopped afterwards; the URL carries its
    ``emulator_host``. A missing emulator is a ``RuntimeError`` saying how to install it.
    """
    import pytest

    from tests import spanner_support

    try:
        with spanner_support.running_emulator() as emulator:
            await spanner_support.create_instance(emulator)
            async with spanner_support.fresh_database(emulator, drop=False) as path:
                print(f"  ({tag}: Cloud Spanner emulator at {emulator.host}; {EMULATOR_NOTE})")
                yield spanner_support.spanner_url(emulator, path)
    except pytest.fail.Exception as failed:  # the helper's way of saying it could not start
        raise RuntimeError(str(failed)) from None
