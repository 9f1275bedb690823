"""google-adk's ``tools.tool_configs``: the ``tools:`` entries of an agent YAML file.

Defined with the agent config models (``adk_runtime.core._tool_configs``); see
``adk_runtime.agents.config_agent_utils.from_config``.
"""

from adk_runtime.core._tool_configs import BaseToolConfig, ToolArgsConfig, ToolConfig

__all__ = ["BaseToolConfig", "ToolArgsConfig", "ToolConfig"]
