"""The fake model APIs, one per test (``fake``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.models.fake_apis import FakeApi, running


@pytest.fixture
async def fake() -> AsyncIterator[FakeApi]:
    async with running() as server:
        yield server
