"""The YAML schema of a ``LoopAgent`` (``google.adk.agents.loop_agent_config``)."""

from __future__ import annotations

from pydantic import ConfigDict

from adk_runtime.core.base_agent_config import BaseAgentConfig

__all__ = ["LoopAgentConfig"]


class LoopAgentConfig(BaseAgentConfig):
    """A ``LoopAgent`` file: the common keys and ``max_iterations``.

    Attributes:
        agent_class: ``LoopAgent``.
        max_iterations: Upper bound of rounds; unset loops until a sub-agent escalates.
    """

    model_config = ConfigDict(extra="forbid")

    agent_class: str = "LoopAgent"
    max_iterations: int | None = None
