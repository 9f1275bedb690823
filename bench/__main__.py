"""Run the benchmarks: ``python -m bench [topic ...]`` (topics: the bench_<topic>.py names)."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path

from bench.common import Report, write_report


def main(argv: list[str]) -> None:
    here = Path(__file__).parent
    topics = argv or sorted(p.stem.removeprefix("bench_") for p in here.glob("bench_*.py"))
    report = Report()
    for topic in topics:
        module = importlib.import_module(f"bench.bench_{topic}")
        print(f"== {topic}")
        asyncio.run(module.run(report))
    path = write_report(report)
    print(f"\nreport written to {path} and {path.with_suffix('.json')}")


if __name__ == "__main__":
    main(sys.argv[1:])
