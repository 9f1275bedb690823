"""google-adk's path; the names live in :mod:`adk_runtime.core.common_configs`."""

from adk_runtime.core.common_configs import AgentRefConfig, CodeConfig

__all__ = ["AgentRefConfig", "CodeConfig"]
