from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from blockbuster import BlockBuster, blockbuster_ctx

from adk_runtime.sessions import BaseSessionService
from tests.backends import BACKENDS, Backend


@pytest.fixture(params=[backend.param() for backend in BACKENDS])
def backend(request: pytest.FixtureRequest) -> Backend:
    result: Backend = request.param
    return result


@pytest.fixture
async def session_service(
    backend: Backend, request: pytest.FixtureRequest
) -> AsyncIterator[BaseSessionService]:
    async with backend.open(request) as service:
        yield service


@pytest.fixture
def blockbuster() -> Iterator[BlockBuster]:
    """Fail any blocking call made on the event loop during the test."""
    with blockbuster_ctx() as bb:
        yield bb


def pytest_addoption(parser: Any) -> None:
    parser.addoption(
        "--run-reliability", action="store_true", help="run the long reliability tests"
    )
