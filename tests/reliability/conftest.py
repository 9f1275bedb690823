"""Settings shared by the reliability tests: hypothesis profiles and the long-run switch."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
}
settings.register_profile("adk-short", max_examples=20, **_COMMON)  # type: ignore[arg-type]
settings.register_profile("adk-long", max_examples=300, **_COMMON)  # type: ignore[arg-type]


def pytest_configure(config: pytest.Config) -> None:
    long_run = config.getoption("--run-reliability", default=False)
    settings.load_profile("adk-long" if long_run else "adk-short")


@pytest.fixture
def long_run(request: pytest.FixtureRequest) -> bool:
    """True under ``--run-reliability`` (``make test-reliability``): run the long versions."""
    return bool(request.config.getoption("--run-reliability"))
