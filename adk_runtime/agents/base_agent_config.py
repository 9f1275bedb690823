"""google-adk's path; the names live in :mod:`adk_runtime.core.base_agent_config`."""

from adk_runtime.core.base_agent_config import BaseAgentConfig, TBaseAgentConfig

__all__ = ["BaseAgentConfig", "TBaseAgentConfig"]
