"""BaseLlm: the interface every model implements."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from pydantic import BaseModel, ConfigDict

from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse

__all__ = ["BaseLlm"]


class BaseLlm(BaseModel):
    """A model the agents call.

    Attributes:
        model: The model's name, e.g. ``"gemini-2.5-flash"``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: str

    @classmethod
    def supported_models(cls) -> list[str]:
        """Regular expressions of the model names this class serves (see ``LLMRegistry``)."""
        return []

    def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Answer ``llm_request``.

        Args:
            llm_request: The history, config and tools.
            stream: Yield partial responses as they arrive, then the aggregated one.

        Yields:
            One response when not streaming; partial chunks then a final non-partial
            response when streaming. Failures are responses with ``error_code`` set.
        """
        raise NotImplementedError(f"{type(self).__name__} must implement generate_content_async.")
