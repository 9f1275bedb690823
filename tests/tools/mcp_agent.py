"""An agent with an McpToolset (the test MCP server over stdio), for serving tests."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from adk_runtime.agents import LlmAgent
from adk_runtime.testing import ScriptedModel, function_call
from adk_runtime.tools.mcp_tool import McpToolset, StdioConnectionParams, StdioServerParameters

REPO = Path(__file__).resolve().parents[2]


class RecordingToolset(McpToolset):
    """Writes "closed" to $MCP_CLOSED_MARKER once closed (the test reads it)."""

    async def close(self) -> None:
        await super().close()
        marker = os.environ.get("MCP_CLOSED_MARKER")
        if marker:
            Path(marker).write_text("closed")  # noqa: ASYNC240 - a test double


toolset = RecordingToolset(
    connection_params=StdioConnectionParams(
        server_params=StdioServerParameters(
            command=sys.executable, args=["-m", "tests.tools.mcp_server", "stdio"], cwd=str(REPO)
        ),
        timeout=60,
    ),
    tool_filter=["server_pid"],
)
root_agent = LlmAgent(
    name="mcp_app",
    model=ScriptedModel(replies=[function_call("server_pid", {}), "done"]),
    tools=[toolset],
)
