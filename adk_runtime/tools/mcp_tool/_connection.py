"""One MCP client session, held open by a task of its own so any task may close it.

The MCP SDK's transports are anyio context managers that must be entered and left by the
same task. A toolset is used from many tasks (each turn, each tool call) and closed from yet
another (``Runner.close``), so the session lives in a dedicated task: it connects, signals
that the session is ready, waits until asked to close, then leaves the contexts in order
(the stdio server process is stopped and reaped, the HTTP session is deleted).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from collections.abc import AsyncIterator
from typing import Any, TextIO

import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from adk_runtime.tools.mcp_tool._params import (
    ConnectionParams,
    SseConnectionParams,
    StdioConnectionParams,
    describe,
)

__all__ = ["McpConnection", "McpError"]

# The SDK imports jsonschema on the first tool call, which reads files: not on the event loop.
importlib.import_module("jsonschema")

McpError = MCPError


class McpConnection:
    """A connected, initialized ``ClientSession`` and the task that owns it."""

    def __init__(
        self,
        params: ConnectionParams,
        headers: dict[str, str] | None,
        errlog: TextIO,
        client_options: dict[str, Any] | None = None,
    ) -> None:
        """Prepare a connection for ``params`` (not yet connected: call :meth:`open`).

        ``client_options`` are more ``ClientSession`` arguments (the sampling and
        elicitation callbacks).
        """
        if isinstance(params, StdioServerParameters):
            params = StdioConnectionParams(server_params=params)
        self._params: StdioConnectionParams | SseConnectionParams | Any = params
        self._headers = headers
        self._errlog = errlog
        self._client_options = client_options or {}
        self._ready = asyncio.Event()
        self._closing = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._error: BaseException | None = None
        self._incoming: Any = None  # the transport's read stream
        self.session: ClientSession | None = None

    @property
    def alive(self) -> bool:
        """Connected and not closed: the owning task runs and the transport still delivers.

        A stdio server that exited, or a stream the server ended, leaves the session's read
        stream without a sender; such a session is dead even though its task still waits.
        """
        if self.session is None or self._task is None or self._task.done():
            return False
        return not _ended(self._incoming)

    async def open(self, timeout: float) -> ClientSession:
        """Connect and initialize within ``timeout`` seconds.

        Raises:
            ConnectionError: The server could not be started or reached, or did not answer
                the MCP handshake in time (the attempt is cleaned up).
        """
        self._task = asyncio.create_task(self._own(timeout), name="mcp-session")
        await asyncio.wait(
            [self._task, asyncio.ensure_future(self._ready.wait())],
            return_when=asyncio.FIRST_COMPLETED,
        )
        if self.session is None:
            await self.close()
            raise ConnectionError(
                f"Cannot connect to the MCP server ({describe(self._params)}): "
                f"{type(self._error).__name__}: {self._error}"
            ) from self._error
        return self.session

    async def close(self) -> None:
        """Leave the session and the transport (idempotent)."""
        self._closing.set()
        task = self._task
        if task is None:
            return
        with contextlib.suppress(Exception, asyncio.CancelledError):
            await task

    async def _own(self, timeout: float) -> None:
        try:
            async with (
                self._transport() as streams,
                ClientSession(
                    streams[0],
                    streams[1],
                    read_timeout_seconds=self._read_timeout,
                    **self._client_options,
                ) as session,
            ):
                await asyncio.wait_for(session.initialize(), timeout)
                self._incoming = streams[0]
                self.session = session
                self._ready.set()
                await self._closing.wait()
        except Exception as exc:
            self._error = exc
        finally:
            self._ready.set()

    @property
    def _read_timeout(self) -> float:
        return float(getattr(self._params, "sse_read_timeout", None) or self._params.timeout)

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[Any]:
        params = self._params
        if isinstance(params, StdioConnectionParams):
            async with stdio_client(params.server_params, errlog=self._errlog) as streams:
                yield streams
            return
        # Building an HTTP client reads the CA bundle from disk: done in a worker thread.
        client = await asyncio.to_thread(
            params.httpx_client_factory,
            headers=self._headers,
            timeout=httpx2.Timeout(params.timeout, read=params.sse_read_timeout),
        )
        if isinstance(params, SseConnectionParams):
            async with sse_client(
                params.url,
                headers=self._headers,
                timeout=params.timeout,
                sse_read_timeout=params.sse_read_timeout,
                httpx_client_factory=_prebuilt(client),
            ) as streams:
                yield streams
            return
        async with (
            client,
            streamable_http_client(
                params.url, http_client=client, terminate_on_close=params.terminate_on_close
            ) as streams,
        ):
            yield streams


def _prebuilt(client: httpx2.AsyncClient) -> Any:
    """A client factory (as ``sse_client`` takes) that returns ``client``."""

    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        return client

    return factory


def _ended(stream: Any) -> bool:
    """Whether nothing can arrive on ``stream`` any more (an anyio stream without senders).

    A transport whose stream reports no statistics is taken as open: a dead session is then
    found by the call that fails on it.
    """
    statistics: Any = getattr(stream, "statistics", None)
    if statistics is None:
        return False
    try:
        return int(statistics().open_send_streams) == 0
    except Exception:  # a stream that reports otherwise: assume open
        return False
