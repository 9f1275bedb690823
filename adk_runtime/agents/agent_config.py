"""The schema of any agent YAML file (``google.adk.agents.agent_config``)."""

from __future__ import annotations

from typing import Annotated, Any, Union

from pydantic import Discriminator, RootModel, Tag

from adk_runtime.agents.llm_agent_config import LlmAgentConfig
from adk_runtime.agents.loop_agent_config import LoopAgentConfig
from adk_runtime.agents.parallel_agent_config import ParallelAgentConfig
from adk_runtime.agents.sequential_agent_config import SequentialAgentConfig
from adk_runtime.core.base_agent_config import BaseAgentConfig

__all__ = ["AgentConfig", "ConfigsUnion", "agent_config_discriminator"]

_BUILT_IN = ("LlmAgent", "LoopAgent", "ParallelAgent", "SequentialAgent")


def agent_config_discriminator(v: Any) -> str:
    """The tag of the config model for a parsed YAML mapping.

    A missing ``agent_class`` is ``LlmAgent``; the four built-in short names pick their own
    model; anything else (a dotted path) is validated as a :class:`BaseAgentConfig`, which
    keeps unknown keys for the class it names.

    Raises:
        ValueError: ``v`` is not a mapping.
    """
    value = v
    if not isinstance(value, dict):
        raise ValueError(f"An agent config must be a mapping, got {type(value).__name__}.")
    agent_class = value.get("agent_class", "LlmAgent")
    return agent_class if agent_class in _BUILT_IN else "BaseAgent"


# Union[...] rather than `|`: pydantic reads the tags off this exact form on Python 3.10.
ConfigsUnion = Annotated[
    Union[  # noqa: UP007
        Annotated[LlmAgentConfig, Tag("LlmAgent")],
        Annotated[LoopAgentConfig, Tag("LoopAgent")],
        Annotated[ParallelAgentConfig, Tag("ParallelAgent")],
        Annotated[SequentialAgentConfig, Tag("SequentialAgent")],
        Annotated[BaseAgentConfig, Tag("BaseAgent")],
    ],
    Discriminator(agent_config_discriminator),
]
"""Every agent config model, told apart by ``agent_class``."""


class AgentConfig(RootModel[ConfigsUnion]):
    """A whole agent YAML file, validated: ``AgentConfig.model_validate(yaml.safe_load(...))``.

    ``root`` is the config model of the file's ``agent_class``. Building the agent is
    :func:`adk_runtime.agents.config_agent_utils.from_config`'s job.
    """
