"""``retry_on_errors`` and the session manager's own reconnect: once, and never on cancellation.

The reconnect runs against a real MCP server process (``tests/tools/mcp_server.py``) that
the test makes exit mid-session.
"""

from __future__ import annotations

import asyncio
import builtins
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters

from adk_runtime.tools.mcp_tool.mcp_session_manager import (
    MCPSessionManager,
    StdioConnectionParams,
    cancelling,
    retry_on_errors,
)

REPO = Path(__file__).resolve().parents[2]


class Flaky:
    """A method that fails its first ``failures`` calls with ``error``."""

    def __init__(self, error: BaseException, failures: int = 1) -> None:
        self.error, self.failures, self.calls = error, failures, 0

    @retry_on_errors
    async def fetch(self, value: str) -> str:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error
        return f"got {value}"


async def test_a_failed_call_runs_once_more_and_a_second_failure_is_raised() -> None:
    once = Flaky(ConnectionError("closed"))
    assert await once.fetch("x") == "got x"
    assert once.calls == 2
    twice = Flaky(ConnectionError("closed"), failures=2)
    with pytest.raises(ConnectionError):
        await twice.fetch("x")
    assert twice.calls == 2
    assert Flaky.fetch.__name__ == "fetch"  # the decorated method keeps its name


def _translated_cancellation() -> BaseException:
    try:
        try:
            raise asyncio.CancelledError
        except asyncio.CancelledError as cancelled:
            raise ConnectionError("stream closed during teardown") from cancelled
    except ConnectionError as translated:
        return translated


async def test_a_cancellation_is_never_retried() -> None:
    cancelled = Flaky(asyncio.CancelledError())
    with pytest.raises(asyncio.CancelledError):
        await cancelled.fetch("x")
    assert cancelled.calls == 1
    translated = Flaky(_translated_cancellation())
    with pytest.raises(ConnectionError):
        await translated.fetch("x")
    assert translated.calls == 1
    if sys.version_info >= (3, 11):  # exception groups (as anyio's task groups raise them)
        group_type: Any = vars(builtins)["ExceptionGroup"]
        grouped = Flaky(group_type("teardown", [_translated_cancellation()]))
        with pytest.raises(group_type):
            await grouped.fetch("x")
        assert grouped.calls == 1


async def test_no_retry_while_the_task_is_being_cancelled() -> None:
    flaky = Flaky(ConnectionError("closed"))

    async def cancelled_midway() -> str:
        task = asyncio.current_task()
        assert task is not None
        task.cancel()  # requested: the call below fails before the task sees it
        return await flaky.fetch("x")

    with pytest.raises((ConnectionError, asyncio.CancelledError)):
        await asyncio.create_task(cancelled_midway())
    assert flaky.calls == 1
    assert not cancelling(ConnectionError("plain"))


def manager(errlog: Any) -> MCPSessionManager:
    params = StdioConnectionParams(
        server_params=StdioServerParameters(
            command=sys.executable, args=["-m", "tests.tools.mcp_server", "stdio"], cwd=str(REPO)
        ),
        timeout=60,
    )
    return MCPSessionManager(params, errlog=errlog)


class PidReader:
    def __init__(self, sessions: MCPSessionManager) -> None:
        self.sessions, self.calls = sessions, 0

    @retry_on_errors
    async def pid(self) -> int:
        self.calls += 1
        session = await self.sessions.create_session()
        result = await session.call_tool("server_pid", {})
        return int(result.content[0].text)  # type: ignore[union-attr]

    @retry_on_errors
    async def crash(self) -> None:
        session = await self.sessions.create_session()
        await session.call_tool("crash", {})


async def test_a_decorated_call_reconnects_to_a_server_that_exited(tmp_path: Path) -> None:
    with (tmp_path / "server.err").open("w") as errlog:
        sessions = manager(errlog)
        reader = PidReader(sessions)
        try:
            first = await reader.pid()
            with pytest.raises(Exception):  # noqa: B017, PT011 - the process is gone mid-call
                await reader.crash()
            reader.calls = 0
            second = await reader.pid()
        finally:
            await sessions.close()
    assert first != second  # a new server process answered
    assert reader.calls in (1, 2)  # once more only if the dead session was still current


async def test_the_managers_reconnect_skips_a_cancellation(tmp_path: Path) -> None:
    calls = 0

    async def operation(session: ClientSession) -> None:
        nonlocal calls
        calls += 1
        raise _translated_cancellation()

    with (tmp_path / "server.err").open("w") as errlog:
        sessions = manager(errlog)
        try:
            with pytest.raises(ConnectionError):
                await sessions.run(operation)
        finally:
            await sessions.close()
    assert calls == 1  # a lost connection would be retried; a cancellation is not
