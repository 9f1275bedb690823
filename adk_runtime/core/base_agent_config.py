"""The YAML schema shared by every agent (``google.adk.agents.base_agent_config``)."""

from __future__ import annotations

from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from adk_runtime.core.common_configs import AgentRefConfig, CodeConfig

__all__ = ["BaseAgentConfig", "TBaseAgentConfig"]

TBaseAgentConfig = TypeVar("TBaseAgentConfig", bound="BaseAgentConfig")
"""A :class:`BaseAgentConfig` subclass (google-adk's type variable)."""


class BaseAgentConfig(BaseModel):
    """The keys every agent YAML file may have.

    It allows keys it does not know: they go to the fields of the agent class named in
    ``agent_class`` (a custom ``BaseAgent`` subclass declares them as fields, or declares a
    config model of its own as its ``config_type``). The built-in agents' configs forbid
    unknown keys.

    Attributes:
        agent_class: ``LlmAgent`` (the default for an LLM agent file), ``LoopAgent``,
            ``ParallelAgent``, ``SequentialAgent``, or the dotted path of a ``BaseAgent``
            subclass (``google.adk.…`` paths are read as ``adk_runtime.…``).
        name: The agent's name.
        description: What the agent does.
        sub_agents: Other YAML files or agents defined in Python.
        before_agent_callbacks: Dotted paths of ``before_agent_callback`` functions.
        after_agent_callbacks: Dotted paths of ``after_agent_callback`` functions.
    """

    model_config = ConfigDict(extra="allow")

    agent_class: Literal["BaseAgent"] | str = "BaseAgent"
    name: str
    description: str = ""
    sub_agents: list[AgentRefConfig] | None = None
    before_agent_callbacks: list[CodeConfig] | None = None
    after_agent_callbacks: list[CodeConfig] | None = None
