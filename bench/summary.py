"""The summary section of the benchmark report: one table per backend, targets checked.

Benchmark modules add rows freely; the summary picks the headline figures out of them by
metric name (patterns below, first match wins), so modules should name their rows like this:

========================  ===============================================  ==============
headline                  metric names recognised (any suite)               impl
========================  ===============================================  ==============
append p50 / p99          ``append p50`` / ``append p99`` (also ``append    ``adk_runtime``,
                          @1k p50`` ...)                                    ``floor``,
append events/s           ``append rate`` / ``append events/s``             ``google-adk``
get_session recent-20     ``get_session recent-20 p50`` (or ``get(20) ... p50``)
get_session full          ``get_session full p50`` (or ``get(all) ... p50``)
list page                 ``list page p50`` (also ``list_sessions ... p50``)
Runner events/s           ``Runner events/s``
========================  ===============================================  ==============

``floor`` is the raw driver doing the same work (any impl named ``floor`` or starting with
``raw``); ``google-adk`` is google-adk 2.13 (any impl starting with ``google-adk``).
Targets (issues 2-8): append at least 10x google-adk on SQLite and PostgreSQL, and within 2x
of the raw-driver floor on every backend.
"""

from __future__ import annotations

import dataclasses
import math
import re
from typing import Any

HEADLINES: list[tuple[str, str, bool]] = [
    # (headline, metric pattern, higher is better)
    ("append p50", r"^append( @\S+)? p50$", False),
    ("append p99", r"^append( @\S+)? p99$", False),
    ("append events/s", r"^append( @\S+)? (rate|events/s)$", True),
    ("get_session recent-20 p50", r"^get(_session)?\b.*(\(20\)|recent.?20).*p50$", False),
    ("get_session full p50", r"^get(_session)?\b.*(full|\(all\)).*p50$", False),
    ("list page p50", r"^list(_sessions)?\b.*p50$", False),
    ("Runner events/s", r"^Runner events/s$", True),
    ("C=1 conversations events/s", r"^C=1 events/s$", True),
    ("C=16 conversations events/s", r"^C=16 events/s$", True),
    ("C=64 conversations events/s", r"^C=64 events/s$", True),
    ("C=256 conversations events/s", r"^C=256 events/s$", True),
    ("round trips: append", r"^rtt/append round trips$", False),
    ("round trips: get recent-20", r"^rtt/get recent-20 round trips$", False),
    ("round trips: list page", r"^rtt/list page round trips$", False),
    ("turn @10k / turn @100 (cache)", r"^turn @10k / turn @100$", False),
]
# (backends, headline, against, times): "ours must be at least `times` better than `against`"
TARGETS: list[tuple[tuple[str, ...], str, str, float]] = [
    (("sqlite", "postgres"), "append p50", "google-adk", 10.0),
    (("sqlite", "postgres", "redis"), "append p50", "floor", 0.5),
    (("postgres",), "C=16 conversations events/s", "floor", 0.6),
    (("postgres",), "C=16 conversations events/s", "google-adk", 4.0),
    (("sqlite", "postgres"), "get_session full p50", "google-adk", 3.0),
    (("memory",), "get_session recent-20 p50", "google-adk", 1.5),
]
_PREFERRED_HISTORY = "@1k"


@dataclasses.dataclass
class Line:
    """One headline of one backend, with the comparisons side by side."""

    backend: str
    headline: str
    unit: str
    ours: float | None
    floor: float | None
    google_adk: float | None
    vs_floor: float | None
    vs_google_adk: float | None
    target: str = ""
    met: bool | None = None


def _kind(impl: str) -> str | None:
    if impl == "adk_runtime":
        return "ours"
    if impl == "floor" or impl.startswith("raw"):
        return "floor"
    if impl.startswith("google-adk"):
        return "google_adk"
    return None


def _pick(rows: list[Any], backend: str, pattern: str) -> dict[str, tuple[float, str]]:
    """The first matching row per kind (preferring a ``@1k`` history where there are several)."""
    regex = re.compile(pattern)
    matches = [r for r in rows if r.backend == backend and regex.match(r.metric)]
    matches.sort(key=lambda r: (_PREFERRED_HISTORY not in r.metric, "@" in r.metric))
    found: dict[str, tuple[float, str]] = {}
    for row in matches:
        kind = _kind(row.impl)
        if kind is not None and kind not in found and math.isfinite(row.value):
            found[kind] = (row.value, row.unit)
    return found


def _times_better(ours: float | None, theirs: float | None, higher: bool) -> float | None:
    if ours is None or theirs is None or ours <= 0 or theirs <= 0:
        return None
    return ours / theirs if higher else theirs / ours


def summarize(rows: list[Any]) -> list[Line]:
    """Build the summary lines of every backend that has any headline figure."""
    lines: list[Line] = []
    backends = sorted({row.backend for row in rows})
    for backend in backends:
        for headline, pattern, higher in HEADLINES:
            found = _pick(rows, backend, pattern)
            if "ours" not in found:
                continue
            ours, unit = found["ours"]
            floor = found.get("floor", (None, ""))[0]
            adk = found.get("google_adk", (None, ""))[0]
            line = Line(
                backend=backend,
                headline=headline,
                unit=unit,
                ours=ours,
                floor=floor,
                google_adk=adk,
                vs_floor=_times_better(ours, floor, higher),
                vs_google_adk=_times_better(ours, adk, higher),
            )
            _apply_targets(line)
            lines.append(line)
    return lines


def _apply_targets(line: Line) -> None:
    for backends, headline, against, times in TARGETS:
        if line.backend not in backends or line.headline != headline:
            continue
        ratio = line.vs_google_adk if against == "google-adk" else line.vs_floor
        wording = (
            f">= {times:g}x {against}" if times >= 1 else f"within {1 / times:g}x of {against}"
        )
        met = None if ratio is None else ratio >= times
        verdict = {None: "not measured", True: "met", False: "**missed**"}[met]
        line.target = "; ".join(filter(None, [line.target, f"{wording}: {verdict}"]))
        if met is not None:
            line.met = met if line.met is None else (line.met and met)


def _fmt(value: float | None, suffix: str = "") -> str:
    if value is None:
        return "—"
    return f"{value:,.3f}{suffix}" if value < 100 else f"{value:,.0f}{suffix}"


def markdown(lines: list[Line]) -> list[str]:
    """The summary as markdown: one table per backend."""
    out = ["## Summary", ""]
    if not lines:
        return [*out, "No headline figures were measured.", ""]
    out += [
        "Ratios are 'times better' (>1 is better for adk_runtime). Single runs on a shared",
        "machine: expect noise of 10-30%.",
        "",
    ]
    for backend in sorted({line.backend for line in lines}):
        out += [
            f"### {backend}",
            "",
            "| headline | adk_runtime | raw floor | vs floor | google-adk | vs google-adk "
            "| targets | all met |",
            "|---|---:|---:|---:|---:|---:|---|---|",
        ]
        for line in (line for line in lines if line.backend == backend):
            met = {None: "—", True: "yes", False: "**no**"}[line.met]
            out.append(
                f"| {line.headline} ({line.unit}) | {_fmt(line.ours)} | {_fmt(line.floor)} "
                f"| {_fmt(line.vs_floor, 'x')} | {_fmt(line.google_adk)} "
                f"| {_fmt(line.vs_google_adk, 'x')} | {line.target or '—'} | {met} |"
            )
        out.append("")
    return out
