"""MCPSessionManager: one live MCP session per distinct set of headers, reconnected on demand."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Concatenate, ParamSpec, TextIO, TypeVar

from mcp import ClientSession, StdioServerParameters
from mcp.client.session import ElicitationFnT, SamplingFnT
from mcp.shared.exceptions import MCPError
from mcp.types import CONNECTION_CLOSED, SamplingCapability

from adk_runtime.tools.mcp_tool._connection import McpConnection
from adk_runtime.tools.mcp_tool._params import (
    CheckableMcpHttpClientFactory,
    ConnectionParams,
    SseConnectionParams,
    StdioConnectionParams,
    StreamableHTTPConnectionParams,
    checked,
    create_mcp_http_client,
    describe,
)

__all__ = [
    "CheckableMcpHttpClientFactory",
    "MCPSessionManager",
    "SseConnectionParams",
    "SseServerParams",
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
    "StreamableHTTPServerParams",
    "create_mcp_http_client",
    "retry_on_errors",
]

logger = logging.getLogger(__name__)

T = TypeVar("T")
S = TypeVar("S")
P = ParamSpec("P")

SseServerParams = SseConnectionParams
"""google-adk's older name of :class:`SseConnectionParams`."""
StreamableHTTPServerParams = StreamableHTTPConnectionParams
"""google-adk's older name of :class:`StreamableHTTPConnectionParams`."""


class MCPSessionManager:
    """Opens MCP sessions to one server and keeps them until :meth:`close`.

    HTTP connections with different headers (e.g. per-user tokens from a
    ``header_provider``) get sessions of their own. A session whose connection died (the
    server process exited, the HTTP session expired) is replaced on the next request.
    Sessions belong to the event loop that opened them.
    """

    def __init__(
        self,
        connection_params: ConnectionParams,
        errlog: TextIO = sys.stderr,
        *,
        sampling_callback: SamplingFnT | None = None,
        sampling_capabilities: SamplingCapability | None = None,
        elicitation_callback: ElicitationFnT | None = None,
    ) -> None:
        """Manage sessions to the server ``connection_params`` names.

        Args:
            connection_params: How to reach the server.
            errlog: Where a stdio server's stderr goes.
            sampling_callback: Answers the server's sampling requests (it asks the client's
                model for a completion): the MCP SDK's ``SamplingFnT``. Without it the
                client does not offer sampling.
            sampling_capabilities: What the client's sampling supports (MCP SDK's
                ``SamplingCapability``).
            elicitation_callback: Answers the server's elicitation requests (it asks the
                user for input): the MCP SDK's ``ElicitationFnT``.

        Raises:
            McpConfigurationError: ``connection_params`` is None or names no MCP server
                (a ``ValueError``).
        """
        connection_params = checked(connection_params)
        if isinstance(connection_params, StdioServerParameters):
            connection_params = StdioConnectionParams(server_params=connection_params)
        self._connection_params = connection_params
        self._errlog = errlog
        self._client_options: dict[str, Any] = {
            name: value
            for name, value in (
                ("sampling_callback", sampling_callback),
                ("sampling_capabilities", sampling_capabilities),
                ("elicitation_callback", elicitation_callback),
            )
            if value is not None
        }
        self._connections: dict[str, McpConnection] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None

    @property
    def connection_params(self) -> ConnectionParams:
        """How the server is reached."""
        return self._connection_params

    def _headers(self, extra: dict[str, str] | None) -> dict[str, str] | None:
        if isinstance(self._connection_params, StdioConnectionParams):
            return None
        merged = {**(self._connection_params.headers or {}), **(extra or {})}
        return merged or None

    def _lock_for_loop(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._lock is None or self._loop is not loop:
            # Another loop (e.g. each ``Runner.run`` call runs one): its sessions ended with it.
            if any(connection.alive for connection in self._connections.values()):
                logger.warning(
                    "MCP sessions of %s are still open on another event loop; this loop opens "
                    "its own.",
                    describe(self._connection_params),
                )
            self._connections.clear()
            self._loop, self._lock = loop, asyncio.Lock()
        return self._lock

    async def create_session(self, headers: dict[str, str] | None = None) -> ClientSession:
        """A connected session for ``headers`` (the same one while it lives).

        A session whose transport ended (the server process exited, the stream closed) is
        replaced by a new connection before it is handed out.

        Raises:
            ConnectionError: The server cannot be started or reached.
        """
        merged = self._headers(headers)
        key = json.dumps(merged or {}, sort_keys=True)
        async with self._lock_for_loop():
            connection = self._connections.get(key)
            if connection is not None and connection.alive and connection.session is not None:
                return connection.session
            if connection is not None:
                logger.info(
                    "MCP connection to %s is gone; reconnecting.",
                    describe(self._connection_params),
                )
                del self._connections[key]
                await connection.close()
            connection = McpConnection(
                self._connection_params, merged, self._errlog, self._client_options
            )
            session = await connection.open(self._connection_params.timeout)
            self._connections[key] = connection
            return session

    async def run(
        self,
        operation: Callable[[ClientSession], Awaitable[T]],
        headers: dict[str, str] | None = None,
    ) -> T:
        """Run ``operation`` on the session for ``headers``, reconnecting once if need be.

        If the connection was lost (the server process exited, the HTTP session ended), a
        new session is opened and ``operation`` runs once more. An error the server answered
        with is raised as it is, without a retry.

        Raises:
            ConnectionError: The server cannot be started or reached.
        """
        session = await self.create_session(headers)
        try:
            return await operation(session)
        except Exception as exc:
            if not _connection_lost(exc) or cancelling(exc):
                raise
            logger.info(
                "MCP connection to %s lost (%s); reconnecting once.",
                describe(self._connection_params),
                type(exc).__name__,
            )
            await self.discard(session)
        return await operation(await self.create_session(headers))

    async def discard(self, session: ClientSession) -> None:
        """Close the connection of ``session`` (broken); the next request opens a new one."""
        for key, connection in list(self._connections.items()):
            if connection.session is session:
                del self._connections[key]
                await connection.close()

    async def close(self) -> None:
        """Close every session (a stdio server process is stopped and reaped)."""
        connections, self._connections = list(self._connections.values()), {}
        for connection in connections:
            await connection.close()


def cancelling(exc: BaseException) -> bool:
    """Whether ``exc`` comes of a cancellation (the task's, or one in its cause or context).

    Teardown may turn a cancellation into another error (a closed stream, say): that is
    never retried, or a cancelled call would reconnect and run again.
    """
    task = asyncio.current_task()
    count = getattr(task, "cancelling", None)
    if count is not None and count() > 0:
        return True
    seen: set[int] = set()
    pending: list[BaseException] = [exc]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, asyncio.CancelledError):
            return True
        pending.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        grouped = getattr(current, "exceptions", None)  # an exception group's members
        if isinstance(grouped, tuple):
            pending.extend(e for e in grouped if isinstance(e, BaseException))  # pyright: ignore[reportUnknownVariableType]
    return False


def retry_on_errors(
    func: Callable[Concatenate[S, P], Coroutine[Any, Any, T]],
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, T]]:
    """Run an async method once more when it fails (google-adk's decorator for MCP calls).

    Meant for methods that get their session from ``MCPSessionManager.create_session``,
    which replaces a session whose connection is gone, so the second run reconnects. A
    cancellation is never retried (see :func:`cancelling`); the second failure is raised.
    """

    async def retried(owner: S, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await func(owner, *args, **kwargs)
        except Exception as exc:
            if cancelling(exc):
                raise
            logger.info("Retrying %s after %s.", func.__name__, type(exc).__name__)
            return await func(owner, *args, **kwargs)

    functools.update_wrapper(retried, func)
    return retried


def _connection_lost(exc: Exception) -> bool:
    """Whether ``exc`` means the connection is gone (not an error the server answered)."""
    if isinstance(exc, MCPError):
        return exc.error.code == CONNECTION_CLOSED
    return True
