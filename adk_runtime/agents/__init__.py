"""Agents and their contexts (``google.adk.agents`` → ``adk_runtime.agents``)."""

from adk_runtime.agents._instructions import MissingStateKeyError
from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.callback_context import CallbackContext
from adk_runtime.agents.invocation_context import InvocationContext, LlmCallsLimitExceededError
from adk_runtime.agents.llm_agent import Agent, LlmAgent
from adk_runtime.agents.loop_agent import LoopAgent
from adk_runtime.agents.parallel_agent import ParallelAgent
from adk_runtime.agents.readonly_context import ReadonlyContext
from adk_runtime.agents.run_config import RunConfig, StreamingMode
from adk_runtime.agents.sequential_agent import SequentialAgent

__all__ = [
    "Agent",
    "BaseAgent",
    "CallbackContext",
    "InvocationContext",
    "LlmAgent",
    "LlmCallsLimitExceededError",
    "LoopAgent",
    "MissingStateKeyError",
    "ParallelAgent",
    "ReadonlyContext",
    "RunConfig",
    "SequentialAgent",
    "StreamingMode",
]
