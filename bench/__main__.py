"""Run the benchmarks: ``python -m bench [--quick] [topic ...]``.

Topics are the ``bench_<topic>.py`` module names; all of them by default. A module that fails
is reported (in the output and in the report) and the others still run.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import sys
import time
import traceback
from pathlib import Path

from bench.common import QUICK_ENV, Report, write_report


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("topics", nargs="*", help="bench_<topic>.py modules to run (default: all)")
    parser.add_argument("--quick", action="store_true", help="fewer iterations (a smoke run)")
    args = parser.parse_args(argv)
    if args.quick:
        os.environ[QUICK_ENV] = "1"
    here = Path(__file__).parent
    topics = args.topics or sorted(p.stem.removeprefix("bench_") for p in here.glob("bench_*.py"))
    report = Report()
    errors: dict[str, str] = {}
    for topic in topics:
        print(f"== {topic}")
        start = time.perf_counter()
        try:
            module = importlib.import_module(f"bench.bench_{topic}")
            asyncio.run(module.run(report))
        except Exception as exc:  # one broken module must not lose the others' figures
            traceback.print_exc()
            errors[topic] = f"{type(exc).__name__}: {str(exc)[:300]}"
        print(f"   ({time.perf_counter() - start:.1f} s)")
    path = write_report(report, errors)
    print(f"\nreport written to {path} and {path.with_suffix('.json')}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
