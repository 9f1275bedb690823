"""Tools the model may call (``google.adk.tools`` → ``adk_runtime.tools``).

``McpToolset`` / ``MCPToolset`` are imported on first use: they need the ``mcp`` extra (so
they are not in ``__all__``: ``from adk_runtime.tools import *`` works without it); so is
``AuthToolArguments``, which needs the ``auth`` extra.
"""

from typing import TYPE_CHECKING, Any

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.base_toolset import BaseToolset
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.tools._remote_mcp_server import RemoteMcpServer
from adk_runtime.tools._request_input_tool import request_input
from adk_runtime.tools.agent_tool import AgentTool
from adk_runtime.tools.enterprise_search_tool import enterprise_web_search_tool
from adk_runtime.tools.example_tool import ExampleTool
from adk_runtime.tools.exit_loop_tool import exit_loop
from adk_runtime.tools.function_tool import FunctionTool
from adk_runtime.tools.get_user_choice_tool import get_user_choice_tool
from adk_runtime.tools.google_maps_grounding_tool import google_maps_grounding
from adk_runtime.tools.google_search_tool import google_search
from adk_runtime.tools.load_artifacts_tool import load_artifacts_tool
from adk_runtime.tools.load_memory_tool import LoadMemoryTool, load_memory_tool
from adk_runtime.tools.long_running_tool import LongRunningFunctionTool
from adk_runtime.tools.preload_memory_tool import PreloadMemoryTool, preload_memory_tool
from adk_runtime.tools.tool_confirmation import ToolConfirmation
from adk_runtime.tools.transfer_to_agent_tool import TransferToAgentTool, transfer_to_agent
from adk_runtime.tools.url_context_tool import url_context
from adk_runtime.tools.vertex_ai_search_tool import VertexAiSearchTool

if TYPE_CHECKING:
    from adk_runtime.auth.auth_tool import AuthToolArguments as AuthToolArguments
    from adk_runtime.tools.mcp_tool import MCPToolset as MCPToolset
    from adk_runtime.tools.mcp_tool import McpToolset as McpToolset

# As in google-adk, the package-level names are the tool instances.
load_memory = load_memory_tool
preload_memory = preload_memory_tool
load_artifacts = load_artifacts_tool
enterprise_web_search = enterprise_web_search_tool
get_user_choice = get_user_choice_tool

__all__ = [
    "AgentTool",
    "BaseTool",
    "BaseToolset",
    "ExampleTool",
    "FunctionTool",
    "LoadMemoryTool",
    "LongRunningFunctionTool",
    "PreloadMemoryTool",
    "RemoteMcpServer",
    "ToolConfirmation",
    "ToolContext",
    "TransferToAgentTool",
    "VertexAiSearchTool",
    "enterprise_web_search",
    "exit_loop",
    "get_user_choice",
    "google_maps_grounding",
    "google_search",
    "load_artifacts",
    "load_memory",
    "load_memory_tool",
    "preload_memory",
    "preload_memory_tool",
    "request_input",
    "transfer_to_agent",
    "url_context",
]


def __getattr__(name: str) -> Any:
    if name in ("McpToolset", "MCPToolset"):
        from adk_runtime.tools import mcp_tool

        return getattr(mcp_tool, name)
    if name == "AuthToolArguments":
        from adk_runtime.auth.auth_tool import AuthToolArguments

        return AuthToolArguments
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
