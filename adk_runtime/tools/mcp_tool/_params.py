"""How to reach an MCP server: a subprocess over stdio, or a URL (streamable HTTP, SSE)."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

import httpx2
from mcp import StdioServerParameters
from pydantic import BaseModel, ConfigDict, Field, field_validator

from adk_runtime.errors import ConfigurationError

__all__ = [
    "CheckableMcpHttpClientFactory",
    "ConnectionParams",
    "McpConfigurationError",
    "SseConnectionParams",
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
    "checked",
    "create_mcp_http_client",
    "describe",
]


class McpConfigurationError(ConfigurationError, ValueError):
    """An MCP toolset or session manager was given no server, or something that is not one.

    A ``ValueError`` too, as google-adk raises for missing connection params.
    """


MCP_DEFAULT_TIMEOUT = 30.0
"""Seconds for connecting, writing and waiting for a pooled connection (the MCP SDK's)."""
MCP_DEFAULT_SSE_READ_TIMEOUT = 300.0
"""Seconds a read may wait: a server may hold a response stream open (the MCP SDK's)."""


def create_mcp_http_client(
    headers: dict[str, str] | None = None,
    timeout: httpx2.Timeout | None = None,
    auth: httpx2.Auth | None = None,
) -> httpx2.AsyncClient:
    """A client for one MCP connection, with the MCP SDK's default timeouts.

    Redirects are not followed by the client: the SDK's transports follow those that stay
    within the endpoint's origin themselves. Ours, not the SDK's (which keeps its factory in
    a private module), with the same signature and defaults.
    """
    if timeout is None:
        timeout = httpx2.Timeout(MCP_DEFAULT_TIMEOUT, read=MCP_DEFAULT_SSE_READ_TIMEOUT)
    return httpx2.AsyncClient(headers=headers, timeout=timeout, auth=auth)


@runtime_checkable
class CheckableMcpHttpClientFactory(Protocol):
    """What ``httpx_client_factory`` takes: ``(headers, timeout, auth) -> httpx.AsyncClient``.

    The MCP SDK's client-factory signature (:func:`create_mcp_http_client` is the
    default). A factory of your own sets proxies, client certificates (mTLS), a CA
    bundle or event hooks; it must use the ``headers`` and ``timeout`` it is given (the
    toolset's headers and the params' timeouts). It is called in a worker thread, since
    building a client reads certificate files.
    """

    def __call__(
        self,
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        """A new client for one MCP connection."""
        ...


class StdioConnectionParams(BaseModel):
    """An MCP server started as a subprocess and spoken to over its stdin/stdout.

    Attributes:
        server_params: The command, arguments, environment and working directory.
        timeout: Seconds allowed to start the server and complete the MCP handshake; also
            the time a call may wait for its answer.
    """

    server_params: StdioServerParameters
    timeout: float = Field(default=5.0, gt=0)


class _HttpConnectionParams(BaseModel):
    """What both HTTP transports take (see :class:`StreamableHTTPConnectionParams`)."""

    # A bad URL is not echoed in the error: it may carry a token.
    model_config = ConfigDict(arbitrary_types_allowed=True, hide_input_in_errors=True)

    url: str
    headers: dict[str, Any] | None = Field(default=None, repr=False)  # may hold credentials
    timeout: float = Field(default=5.0, gt=0)
    sse_read_timeout: float = Field(default=300.0, gt=0)

    @field_validator("url")
    @classmethod
    def _http_url(cls, url: str) -> str:
        return _checked_url(url)


class SseConnectionParams(_HttpConnectionParams):
    """An MCP server reached over HTTP with Server-Sent Events (the older HTTP transport).

    Its attributes are those of :class:`StreamableHTTPConnectionParams` but
    ``terminate_on_close`` (``url`` is the server's SSE endpoint).
    """

    httpx_client_factory: CheckableMcpHttpClientFactory = create_mcp_http_client


class StreamableHTTPConnectionParams(_HttpConnectionParams):
    """An MCP server reached over streamable HTTP (the current HTTP transport).

    Attributes:
        url: The server's MCP endpoint (e.g. ``http://127.0.0.1:8000/mcp``).
        headers: HTTP headers sent with every request (e.g. authorization).
        timeout: Seconds allowed to connect and complete the MCP handshake.
        sse_read_timeout: Seconds a call may wait for its answer.
        terminate_on_close: End the server-side MCP session (HTTP DELETE) on close.
        httpx_client_factory: Makes the HTTP client of each connection (see
            :class:`CheckableMcpHttpClientFactory`).
    """

    terminate_on_close: bool = True
    httpx_client_factory: CheckableMcpHttpClientFactory = create_mcp_http_client


ConnectionParams = (
    StdioConnectionParams
    | SseConnectionParams
    | StreamableHTTPConnectionParams
    | StdioServerParameters
)


def _checked_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        # The value is not echoed: a URL may carry a token in its query or user part.
        raise ValueError("must be an http:// or https:// URL with a host")
    return url


def checked(params: object) -> ConnectionParams:
    """``params`` if it names an MCP server; otherwise a :class:`McpConfigurationError`."""
    if params is None:
        raise McpConfigurationError(
            "Missing connection params: give StdioConnectionParams, "
            "StreamableHTTPConnectionParams or SseConnectionParams."
        )
    if not isinstance(params, ConnectionParams):
        raise McpConfigurationError(
            f"connection params of type {type(params).__name__} name no MCP server: give "
            "StdioConnectionParams, StreamableHTTPConnectionParams or SseConnectionParams."
        )
    return params


def describe(params: ConnectionParams) -> str:
    """Name the server for messages: the command, or the URL without credentials or query."""
    if isinstance(params, StdioServerParameters):
        return f"command {params.command!r}"
    if isinstance(params, StdioConnectionParams):
        return f"command {params.server_params.command!r}"
    parts = urlsplit(params.url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"url '{parts.scheme}://{host}{port}{parts.path}'"
