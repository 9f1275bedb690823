"""A real MCP server with resources and prompts, for the load_mcp_resource and
McpInstructionProvider tests: ``python -m tests.tools.mcp_resource_server`` (stdio)."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

LOGO = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR-not-really-an-image"

server = MCPServer("adk-runtime-resources")


@server.tool()
def noop() -> str:
    """Does nothing."""
    return "ok"


@server.resource("memo://notes", name="notes", mime_type="text/plain")
def notes() -> str:
    """A shopping note."""
    return "buy milk"


@server.resource("img://logo", name="logo", mime_type="image/png")
def logo() -> bytes:
    """A picture."""
    return LOGO


@server.prompt(name="greeting")
def greeting(name: str, visits: str) -> str:
    """Greet the user."""
    return f"Greet {name}, who came {visits} times."


@server.prompt(name="server_pid")
def server_pid() -> str:
    """The server's process id, as the whole prompt."""
    return str(os.getpid())


if __name__ == "__main__":
    server.run("stdio")
