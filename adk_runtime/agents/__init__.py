"""Agents and their contexts (``google.adk.agents`` → ``adk_runtime.agents``)."""

from adk_runtime.agents.base_agent import BaseAgent
from adk_runtime.agents.callback_context import CallbackContext
from adk_runtime.agents.invocation_context import InvocationContext, LlmCallsLimitExceededError
from adk_runtime.agents.readonly_context import ReadonlyContext
from adk_runtime.agents.run_config import RunConfig, StreamingMode

InvocationContext.model_rebuild()

__all__ = [
    "BaseAgent",
    "CallbackContext",
    "InvocationContext",
    "LlmCallsLimitExceededError",
    "ReadonlyContext",
    "RunConfig",
    "StreamingMode",
]
