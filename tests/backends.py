"""The session backends every contract and runner test runs on.

Each backend issue adds one entry to ``BACKENDS``; the suites use it through the
``session_service`` fixture unchanged. A backend's ``open`` yields a fresh, empty service and
removes everything it created afterwards. A server backend that cannot be reached fails its
tests (it is never skipped).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from adk_runtime.sessions import BaseSessionService, InMemorySessionService

OpenService = Callable[[Any], contextlib.AbstractAsyncContextManager[BaseSessionService]]


@dataclasses.dataclass(frozen=True)
class Backend:
    """A backend under test.

    Attributes:
        name: Test id and marker name.
        open: ``open(request)`` → async context manager yielding a fresh service.
        durable: Whether two service objects (or processes) can share the store via ``url``.
    """

    name: str
    open: OpenService
    durable: bool = False

    def param(self) -> Any:
        return pytest.param(self, id=self.name, marks=[getattr(pytest.mark, self.name)])


@contextlib.asynccontextmanager
async def _open_memory(request: Any) -> AsyncIterator[BaseSessionService]:
    async with InMemorySessionService() as service:
        yield service


BACKENDS: list[Backend] = [
    Backend("memory", _open_memory),
]
