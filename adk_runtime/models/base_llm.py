"""BaseLlm: the interface every model implements."""

from __future__ import annotations

import warnings
from collections.abc import AsyncGenerator

from pydantic import BaseModel, ConfigDict

from adk_runtime.models._capabilities import LlmCapabilities, gemini_output_schema_and_tools
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

    @property
    def capabilities(self) -> LlmCapabilities:
        """What this model can do (see :class:`LlmCapabilities`); the flow reads it.

        A model class declares its own by overriding this property (``Gemini``, ``LiteLlm``
        do). One that does not is judged by its name, as before capabilities existed: a
        Gemini model name on Vertex AI pairs a response schema with tools, and that guess
        warns (``FutureWarning``) because it will go.
        """
        guessed = gemini_output_schema_and_tools(self.model)
        if guessed:
            warnings.warn(
                f"{type(self).__name__} does not declare its capabilities, so "
                "output_schema_and_tools is guessed from its model name; override "
                "BaseLlm.capabilities to declare it.",
                FutureWarning,
                stacklevel=3,
            )
        return LlmCapabilities(output_schema_and_tools=guessed)

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
