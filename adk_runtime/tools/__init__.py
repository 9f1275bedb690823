"""Tools the model may call (``google.adk.tools`` → ``adk_runtime.tools``)."""

# The agents package first: tool contexts build on its contexts, and agents use tools.
import adk_runtime.agents  # noqa: F401
from adk_runtime.tools.agent_tool import AgentTool
from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.tools.exit_loop_tool import exit_loop
from adk_runtime.tools.function_tool import FunctionTool
from adk_runtime.tools.load_memory_tool import LoadMemoryTool, load_memory_tool
from adk_runtime.tools.long_running_tool import LongRunningFunctionTool
from adk_runtime.tools.preload_memory_tool import PreloadMemoryTool, preload_memory_tool
from adk_runtime.tools.tool_context import ToolContext
from adk_runtime.tools.transfer_to_agent_tool import TransferToAgentTool, transfer_to_agent

# As in google-adk, the package-level names are the tool instances.
load_memory = load_memory_tool
preload_memory = preload_memory_tool

__all__ = [
    "AgentTool",
    "BaseTool",
    "FunctionTool",
    "LoadMemoryTool",
    "LongRunningFunctionTool",
    "PreloadMemoryTool",
    "ToolContext",
    "TransferToAgentTool",
    "exit_loop",
    "load_memory",
    "load_memory_tool",
    "preload_memory",
    "preload_memory_tool",
    "transfer_to_agent",
]
