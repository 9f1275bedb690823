"""BasePlanner: the two hooks an LLM agent's planner has."""

from __future__ import annotations

import abc
from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.models.llm_request import LlmRequest

if TYPE_CHECKING:
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.readonly_context import ReadonlyContext

__all__ = ["BasePlanner"]


class BasePlanner(abc.ABC):
    """Shapes each model request for planning and post-processes each model response.

    Set one on ``LlmAgent(planner=...)``. Both hooks run on every model step of the agent.
    """

    @abc.abstractmethod
    def build_planning_instruction(
        self, readonly_context: ReadonlyContext, llm_request: LlmRequest
    ) -> str | None:
        """Return text appended to the system instruction, or None for none.

        Args:
            readonly_context: The invocation, read-only.
            llm_request: The request being built (read it, do not change it).
        """

    @abc.abstractmethod
    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> list[types.Part] | None:
        """Return the parts that replace the model response's parts, or None to keep them.

        Args:
            callback_context: The invocation; state written here rides on the response event.
            response_parts: The complete (non-partial) response's parts.
        """
