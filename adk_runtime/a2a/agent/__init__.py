"""The A2A client agent (google-adk's ``a2a.agent`` package)."""

from adk_runtime.a2a.agent._errors import A2AClientError, AgentCardResolutionError
from adk_runtime.a2a.agent._remote_a2a_agent import RemoteA2aAgent
from adk_runtime.a2a.agent.config import (
    A2aCardRequestConfig,
    A2aRemoteAgentConfig,
    CardRequestInterceptor,
    ParametersConfig,
    RequestInterceptor,
)

__all__ = [
    "A2AClientError",
    "A2aCardRequestConfig",
    "A2aRemoteAgentConfig",
    "AgentCardResolutionError",
    "CardRequestInterceptor",
    "ParametersConfig",
    "RemoteA2aAgent",
    "RequestInterceptor",
]
