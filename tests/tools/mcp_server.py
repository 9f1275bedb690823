"""A real MCP server for the tests, written with the MCP SDK's server API.

``python -m tests.tools.mcp_server stdio`` serves over stdin/stdout;
``python -m tests.tools.mcp_server http PORT`` serves streamable HTTP on 127.0.0.1:PORT/mcp;
``python -m tests.tools.mcp_server sse PORT`` serves the older SSE transport on PORT/sse.
"""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer("adk-runtime-test")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


@server.tool()
def server_pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def explode(reason: str) -> str:
    """Always fails."""
    raise ToolError(f"exploded: {reason}")


@server.tool()
def crash() -> str:
    """Ends the server process at once (to test reconnection)."""
    os._exit(3)


@server.tool()
def whoami(ctx: Context) -> str:
    """The x-user header of the HTTP request (empty on stdio)."""
    headers = ctx.headers or {}
    return headers.get("x-user", "")


@server.tool()
def credentials(ctx: Context) -> dict[str, str]:
    """The credential headers of the HTTP request (Authorization, X-Api-Key)."""
    headers = ctx.headers or {}
    return {name: headers[name] for name in ("authorization", "x-api-key") if name in headers}


@server.tool()
async def count_up(n: int, ctx: Context) -> int:
    """Counts to n, reporting progress at each step."""
    for step in range(1, n + 1):
        await ctx.report_progress(progress=step, total=n, message=f"step {step}")
    return n


@server.tool()
async def summarize(text: str, ctx: Context) -> str:
    """Asks the client's model for a summary (MCP sampling)."""
    message = SamplingMessage(role="user", content=TextContent(type="text", text=text))
    result = await ctx.session.create_message([message], max_tokens=50)
    content = result.content
    return f"summary: {content.text}" if isinstance(content, TextContent) else "summary: ?"


class Approval(BaseModel):
    approve: bool


@server.tool()
async def delete_file(path: str, ctx: Context) -> str:
    """Asks the user before deleting (MCP elicitation)."""
    answer = await ctx.elicit(f"Delete {path}?", Approval)
    if answer.action == "accept" and answer.data.approve:
        return f"deleted {path}"
    return f"kept {path} ({answer.action})"


@server.tool()
def grounded_search(query: str) -> CallToolResult:
    """A search whose result carries the sources it found (ADK grounding metadata)."""
    grounding = {
        "groundingChunks": [{"web": {"uri": "https://example.org/a", "title": query}}],
        "webSearchQueries": [query],
    }
    return CallToolResult(
        content=[TextContent(type="text", text=f"found: {query}")],
        _meta={"adk_grounding_metadata": grounding},
    )


@server.resource("memo://menu", name="menu", mime_type="text/plain")
def menu() -> str:
    """Today's menu."""
    return "soup, bread, pie"


@server.prompt(name="persona")
def persona(style: str) -> str:
    """The agent's persona."""
    return f"You answer in a {style} style."


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    elif sys.argv[1] == "sse":
        server.run("sse", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
