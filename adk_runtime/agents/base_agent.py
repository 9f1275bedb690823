"""google-adk's path; the names live in :mod:`adk_runtime.core.base_agent`."""

from adk_runtime.core.base_agent import (
    AfterAgentCallback,
    AgentState,
    BaseAgent,
    BaseAgentConfig,
    BaseAgentState,
    BeforeAgentCallback,
    SelfAgent,
)

__all__ = [
    "AfterAgentCallback",
    "AgentState",
    "BaseAgent",
    "BaseAgentConfig",
    "BaseAgentState",
    "BeforeAgentCallback",
    "SelfAgent",
]
