"""The benchmark report's summary: headline figures picked per backend, targets checked."""

from __future__ import annotations

from bench.common import Report
from bench.summary import markdown, summarize


def _report() -> Report:
    report = Report()
    report.add("sql", "sqlite", "append p50", 0.4, "ms")
    report.add("sql", "sqlite", "append p50", 0.3, "ms", impl="floor")
    report.add("sql", "sqlite", "append p50", 8.0, "ms", impl="google-adk")
    report.add("sql", "postgres", "append @1k p50", 2.0, "ms")
    report.add("sql", "postgres", "append @10k p50", 9.0, "ms")
    report.add("sql", "postgres", "append @1k p50", 0.5, "ms", impl="raw asyncpg")
    report.add("sql", "postgres", "append @1k p50", 10.0, "ms", impl="google-adk")
    report.add("sessions", "redis", "get(20) @1k p50", 0.8, "ms")
    report.add("sessions", "redis", "get(20) @10k p50", 0.9, "ms")
    report.add("sessions", "redis", "get(all) @1k p50", 4.0, "ms")
    report.add("sessions", "redis", "list 50 of 10k p50", 2.5, "ms")
    report.add("sessions", "redis", "append p50 @10k / @1k", 0.7, "x")
    report.add("runner", "redis", "Runner events/s", 900.0, "events/s")
    report.add("runner", "redis", "Runner events/s", 300.0, "events/s", impl="google-adk")
    report.add("runner", "redis", "Runner events/s vs google-adk", 3.0, "x", impl="ratio")
    return report


def test_summary_picks_headlines_and_checks_targets() -> None:
    lines = {(line.backend, line.headline): line for line in summarize(_report().rows)}
    sqlite = lines[("sqlite", "append p50")]
    assert (sqlite.ours, sqlite.floor, sqlite.google_adk) == (0.4, 0.3, 8.0)
    assert sqlite.vs_google_adk == 20.0
    assert sqlite.met is True  # 20x google-adk and 1.33x the floor
    postgres = lines[("postgres", "append p50")]
    assert postgres.ours == 2.0  # the @1k figure, not @10k
    assert postgres.floor == 0.5
    assert postgres.met is False  # 5x google-adk, 4x the floor: both targets missed
    redis = lines[("redis", "Runner events/s")]
    assert redis.vs_google_adk == 3.0
    assert redis.met is None  # no target for this headline
    assert ("redis", "append p50") not in lines
    assert lines[("redis", "get_session recent-20 p50")].ours == 0.8
    assert lines[("redis", "get_session full p50")].ours == 4.0
    assert lines[("redis", "list page p50")].ours == 2.5


def test_summary_markdown_has_one_table_per_backend() -> None:
    text = "\n".join(markdown(summarize(_report().rows)))
    assert text.count("### ") == 3
    assert "| append p50 (ms) | 0.400 | 0.300 | 0.750x | 8.000 | 20.000x |" in text
    assert "**no**" in text
