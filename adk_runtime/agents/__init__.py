"""Agents and their contexts (``google.adk.agents`` → ``adk_runtime.agents``).

``Context`` (the tool context) is imported on first use: the tools package builds on this one.
"""

from typing import TYPE_CHECKING

from adk_runtime._lazy import lazy_getattr

# Registers the YAML config loader the core reaches (BaseAgent.from_config and the tools).
from adk_runtime.agents import _config_mapper as _config_mapper
from adk_runtime.agents.live_request_queue import LiveRequest, LiveRequestQueue
from adk_runtime.agents.llm_agent import Agent, LlmAgent
from adk_runtime.agents.llm_agent_config import LlmAgentConfig
from adk_runtime.agents.loop_agent import LoopAgent
from adk_runtime.agents.loop_agent_config import LoopAgentConfig
from adk_runtime.agents.parallel_agent import ParallelAgent
from adk_runtime.agents.parallel_agent_config import ParallelAgentConfig
from adk_runtime.agents.sequential_agent import SequentialAgent
from adk_runtime.agents.sequential_agent_config import SequentialAgentConfig
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.base_agent_config import BaseAgentConfig
from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.core.invocation_context import InvocationContext, LlmCallsLimitExceededError
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.core.run_config import RunConfig, StreamingMode
from adk_runtime.errors import MissingStateKeyError

if TYPE_CHECKING:
    from adk_runtime.agents._managed_agent import ManagedAgent
    from adk_runtime.agents.context import Context
    from adk_runtime.agents.mcp_instruction_provider import (
        McpInstructionProvider as McpInstructionProvider,
    )

__all__ = [
    "Agent",
    "BaseAgent",
    "BaseAgentConfig",
    "CallbackContext",
    "Context",
    "InvocationContext",
    "LiveRequest",
    "LiveRequestQueue",
    "LlmAgent",
    "LlmAgentConfig",
    "LlmCallsLimitExceededError",
    "LoopAgent",
    "LoopAgentConfig",
    "ManagedAgent",
    "MissingStateKeyError",
    "ParallelAgent",
    "ParallelAgentConfig",
    "ReadonlyContext",
    "RunConfig",
    "SequentialAgent",
    "SequentialAgentConfig",
    "StreamingMode",
]

__getattr__ = lazy_getattr(
    __name__,
    {
        "Context": "adk_runtime.agents.context",
        "ManagedAgent": "adk_runtime.agents._managed_agent",  # loads the flow and tools
        "McpInstructionProvider": "adk_runtime.agents.mcp_instruction_provider",  # mcp extra
    },
)
