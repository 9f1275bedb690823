"""BuiltInPlanner: the model's own thinking, configured by a ``ThinkingConfig``."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.planners.base_planner import BasePlanner

if TYPE_CHECKING:
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.readonly_context import ReadonlyContext

__all__ = ["BuiltInPlanner"]

logger = logging.getLogger(__name__)


class BuiltInPlanner(BasePlanner):
    """Plan with the model's built-in thinking.

    Attributes:
        thinking_config: Put on every request's ``config.thinking_config``; it wins over one
            set in the agent's ``generate_content_config``. A model without thinking answers
            with an error.
    """

    def __init__(self, *, thinking_config: types.ThinkingConfig) -> None:
        """Plan with ``thinking_config``."""
        self.thinking_config = thinking_config

    def apply_thinking_config(self, llm_request: LlmRequest) -> None:
        """Set the request's ``thinking_config`` to this planner's."""
        if not self.thinking_config:
            return
        if llm_request.config.thinking_config is not None:
            logger.debug("The planner's thinking_config replaces generate_content_config's.")
        llm_request.config.thinking_config = self.thinking_config

    def build_planning_instruction(
        self, readonly_context: ReadonlyContext, llm_request: LlmRequest
    ) -> str | None:
        """No instruction: the thinking config does the planning."""
        return None

    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> list[types.Part] | None:
        """Responses are kept as the model sent them."""
        return None
