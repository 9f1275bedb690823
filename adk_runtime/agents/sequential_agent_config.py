"""The YAML schema of a ``SequentialAgent`` (``google.adk.agents.sequential_agent_config``)."""

from __future__ import annotations

from pydantic import ConfigDict

from adk_runtime.core.base_agent_config import BaseAgentConfig

__all__ = ["SequentialAgentConfig"]


class SequentialAgentConfig(BaseAgentConfig):
    """A ``SequentialAgent`` file: the common keys (sub-agents, callbacks) and nothing else."""

    model_config = ConfigDict(extra="forbid")

    agent_class: str = "SequentialAgent"
