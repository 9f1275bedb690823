"""The YAML schema of a ``ParallelAgent`` (``google.adk.agents.parallel_agent_config``)."""

from __future__ import annotations

from pydantic import ConfigDict

from adk_runtime.core.base_agent_config import BaseAgentConfig

__all__ = ["ParallelAgentConfig"]


class ParallelAgentConfig(BaseAgentConfig):
    """A ``ParallelAgent`` file: the common keys (sub-agents, callbacks) and nothing else."""

    model_config = ConfigDict(extra="forbid")

    agent_class: str = "ParallelAgent"
