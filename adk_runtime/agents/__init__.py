"""Agents and their contexts (``google.adk.agents`` → ``adk_runtime.agents``)."""

from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.callback_context import CallbackContext
from adk_runtime.agents.invocation_context import InvocationContext, LlmCallsLimitExceededError
from adk_runtime.agents.readonly_context import ReadonlyContext
from adk_runtime.agents.run_config import RunConfig, StreamingMode

InvocationContext.model_rebuild()

from adk_runtime.agents._instructions import MissingStateKeyError  # noqa: E402
from adk_runtime.agents.llm_agent import Agent, LlmAgent  # noqa: E402
from adk_runtime.agents.loop_agent import LoopAgent  # noqa: E402
from adk_runtime.agents.parallel_agent import ParallelAgent  # noqa: E402
from adk_runtime.agents.sequential_agent import SequentialAgent  # noqa: E402

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
