"""Gemini built-in tools: declared in the request's config, run by the model itself."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.base_tool import BaseTool
from adk_runtime.errors import ConfigurationError
from adk_runtime.utils.model_name_utils import extract_model_name, is_gemini_model

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["DISABLE_MODEL_CHECK_ENV", "BuiltInTool", "extract_model_name", "is_gemini_model"]

DISABLE_MODEL_CHECK_ENV = "ADK_DISABLE_GEMINI_MODEL_ID_CHECK"
"""Set to ``1``/``true`` to declare built-in tools for models not named ``gemini-…``."""


def _model_check_disabled() -> bool:
    return os.environ.get(DISABLE_MODEL_CHECK_ENV, "").strip().lower() in ("1", "true")


class BuiltInTool(BaseTool):
    """A tool the model runs itself: no function is declared, nothing runs locally.

    ``process_llm_request`` adds one ``types.Tool`` entry to the request's config; the model's
    answer then carries what the tool found (e.g. ``grounding_metadata``, stored on the
    model-response event).
    """

    label = "built-in tool"

    def _config_tool(self) -> types.Tool:
        raise NotImplementedError

    def _request_tool(self, tool_context: ToolContext) -> types.Tool:
        """The ``types.Tool`` declared for this request (``_config_tool`` unless overridden)."""
        return self._config_tool()

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Built-in tools are never called locally."""
        raise ConfigurationError(f"{self.label} is run by the model, not by the runtime.")

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Declare the tool in the request's config.

        Raises:
            ValueError: The request's model is not a Gemini model (google-adk raises the
                same; set ``ADK_DISABLE_GEMINI_MODEL_ID_CHECK=1`` to skip the check).
        """
        hosted = getattr(llm_request, "_is_managed_agent", False) is True  # Gemini, server-side
        if not (hosted or is_gemini_model(llm_request.model) or _model_check_disabled()):
            raise ValueError(f"{self.label} is not supported for model {llm_request.model}")
        declared = self._request_tool(tool_context)
        llm_request.config.tools = [*(llm_request.config.tools or []), declared]
