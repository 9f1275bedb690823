"""How to reach an MCP server: a subprocess over stdio, or a URL (streamable HTTP, SSE)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from mcp import StdioServerParameters
from pydantic import BaseModel, ConfigDict

__all__ = [
    "ConnectionParams",
    "SseConnectionParams",
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
    "describe",
]


class StdioConnectionParams(BaseModel):
    """An MCP server started as a subprocess and spoken to over its stdin/stdout.

    Attributes:
        server_params: The command, arguments, environment and working directory.
        timeout: Seconds allowed to start the server and complete the MCP handshake; also
            the time a call may wait for its answer.
    """

    server_params: StdioServerParameters
    timeout: float = 5.0


class SseConnectionParams(BaseModel):
    """An MCP server reached over HTTP with Server-Sent Events (the older HTTP transport).

    Attributes:
        url: The server's SSE endpoint.
        headers: HTTP headers sent with every request (e.g. authorization).
        timeout: Seconds allowed to connect and complete the MCP handshake.
        sse_read_timeout: Seconds a call may wait for its answer.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    url: str
    headers: dict[str, Any] | None = None
    timeout: float = 5.0
    sse_read_timeout: float = 300.0


class StreamableHTTPConnectionParams(BaseModel):
    """An MCP server reached over streamable HTTP (the current HTTP transport).

    Attributes:
        url: The server's MCP endpoint (e.g. ``http://127.0.0.1:8000/mcp``).
        headers: HTTP headers sent with every request (e.g. authorization).
        timeout: Seconds allowed to connect and complete the MCP handshake.
        sse_read_timeout: Seconds a call may wait for its answer.
        terminate_on_close: End the server-side MCP session (HTTP DELETE) on close.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    url: str
    headers: dict[str, Any] | None = None
    timeout: float = 5.0
    sse_read_timeout: float = 300.0
    terminate_on_close: bool = True


ConnectionParams = (
    StdioConnectionParams
    | SseConnectionParams
    | StreamableHTTPConnectionParams
    | StdioServerParameters
)


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
