"""The payloads of a delegated task (google-adk 2's names; camelCase aliases accepted)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, alias_generators

__all__ = ["TaskRequest", "TaskResult"]

_CONFIG = ConfigDict(
    extra="forbid", alias_generator=alias_generators.to_camel, populate_by_name=True
)


class TaskRequest(BaseModel):
    """A task handed to an agent.

    Attributes:
        agent_name: The agent the task is for.
        input: The task's arguments, as the delegating call passed them.
    """

    model_config = _CONFIG

    agent_name: str
    input: dict[str, Any]


class TaskResult(BaseModel):
    """What a task agent handed back when it finished.

    Attributes:
        output: The result, validated by the agent's ``output_schema``.
    """

    model_config = _CONFIG

    output: Any


class _DefaultTaskOutput(BaseModel):
    """The result of a task agent without an ``output_schema``."""

    model_config = _CONFIG

    result: str
    """What the agent accomplished, in a few sentences."""
