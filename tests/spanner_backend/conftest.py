"""Fixtures of the Spanner backend tests: a fresh database on the emulator per test."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from adk_runtime.sessions.spanner import SpannerSessionService
from tests.spanner_support import Emulator, fresh_database


@pytest.fixture
async def database(spanner_emulator: Emulator) -> AsyncIterator[str]:
    """An empty database (no schema) on the emulator, dropped afterwards."""
    async with fresh_database(spanner_emulator) as path:
        yield path


@pytest.fixture
async def service(
    spanner_emulator: Emulator, database: str
) -> AsyncIterator[SpannerSessionService]:
    """A service on a fresh database with the schema."""
    async with SpannerSessionService(database, emulator_host=spanner_emulator.host) as opened:
        await opened.prepare()
        yield opened
