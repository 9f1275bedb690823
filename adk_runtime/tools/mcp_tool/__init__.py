"""MCP servers as toolsets (``google.adk.tools.mcp_tool`` → here); needs the ``mcp`` extra.

``to_mcp_server`` (an agent served over MCP) is loaded on first use from the runtime.

Importing this package without the MCP SDK raises ``ConfigurationError`` naming the extra:
``pip install 'adk-runtime[mcp]'``.
"""

# to_mcp_server is in __all__ and loaded by __getattr__ (no import here: it is above tools).
# pyright: reportUnsupportedDunderAll=false

from typing import Any

from adk_runtime.errors import ConfigurationError

try:
    import mcp  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without mcp
    raise ConfigurationError(
        "McpToolset needs the MCP SDK, which is not installed: "
        "pip install 'adk-runtime[mcp]' (or 'adk-runtime[all]')."
    ) from exc

from adk_runtime.tools.mcp_tool._params import McpConfigurationError
from adk_runtime.tools.mcp_tool.conversion_utils import adk_to_mcp_tool_type, gemini_to_json_schema
from adk_runtime.tools.mcp_tool.mcp_session_manager import (
    MCPSessionManager,
    SseConnectionParams,
    SseServerParams,
    StdioConnectionParams,
    StdioServerParameters,
    StreamableHTTPConnectionParams,
    StreamableHTTPServerParams,
)
from adk_runtime.tools.mcp_tool.mcp_tool import MCPTool, McpTool
from adk_runtime.tools.mcp_tool.mcp_toolset import MCPToolset, McpToolset

__all__ = [
    "MCPSessionManager",
    "MCPTool",
    "MCPToolset",
    "McpConfigurationError",
    "McpTool",
    "McpToolset",
    "SseConnectionParams",
    "SseServerParams",
    "StdioConnectionParams",
    "StdioServerParameters",
    "StreamableHTTPConnectionParams",
    "StreamableHTTPServerParams",
    "adk_to_mcp_tool_type",
    "gemini_to_json_schema",
    "to_mcp_server",
]


def __getattr__(name: str) -> Any:
    # to_mcp_server serves an agent through a Runner: it lives in the runtime, above tools.
    if name == "to_mcp_server":
        from adk_runtime.runtime.mcp_server import to_mcp_server

        return to_mcp_server
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
