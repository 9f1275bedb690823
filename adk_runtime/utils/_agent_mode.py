"""How an ``LlmAgent`` takes part in a conversation: chatting, or doing a delegated task."""

from __future__ import annotations

import enum
from typing import Literal, TypeAlias

__all__ = ["DELEGATED_TASK_MODES", "AgentMode", "LlmAgentMode"]


class AgentMode(str, enum.Enum):
    """An ``LlmAgent``'s mode (``LlmAgent.mode``); members equal their string values.

    Attributes:
        CHAT: The agent converses; its parent reaches it with ``transfer_to_agent``.
        TASK: The parent delegates a task to it as a function call; it may ask the user
            questions over several turns and ends the task by calling ``finish_task``.
        SINGLE_TURN: The parent delegates a task to it as a function call; it answers from
            the call's arguments alone, in one run, and its final answer is the result.
    """

    CHAT = "chat"
    TASK = "task"
    SINGLE_TURN = "single_turn"

    def __str__(self) -> str:
        return self.value


LlmAgentMode: TypeAlias = Literal["chat", "task", "single_turn"] | AgentMode
"""The values ``LlmAgent.mode`` takes."""

DELEGATED_TASK_MODES: frozenset[str] = frozenset(
    {AgentMode.TASK.value, AgentMode.SINGLE_TURN.value}
)
"""Modes whose agents are called by their parent as tools instead of transferred to."""
