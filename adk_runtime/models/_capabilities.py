"""What a model can do, as the model reports it (``BaseLlm.capabilities``).

The flow asks the model instead of guessing from its name: with
``output_schema_and_tools`` an agent's ``output_schema`` is sent as the request's response
schema even while the agent has tools; without it the model answers through
``set_model_response``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field
from typing_extensions import deprecated

from adk_runtime.utils.model_name_utils import is_gemini_model
from adk_runtime.utils.variant_utils import GoogleLLMVariant, get_google_llm_variant

if TYPE_CHECKING:
    from adk_runtime.models.base_llm import BaseLlm

__all__ = ["LlmCapabilities", "can_use_output_schema_with_tools", "gemini_output_schema_and_tools"]


class LlmCapabilities(BaseModel):
    """A model's capabilities: a frozen snapshot, computed afresh on each read.

    Override ``BaseLlm.capabilities`` in a subclass to change one, building on what the
    parent reports: ``LlmCapabilities(**super().capabilities.model_dump() | {...})`` (an
    unknown name is refused).

    Attributes:
        output_schema_and_tools: The model takes a response schema and tools in one request.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    output_schema_and_tools: bool = Field(
        default=False, description="The model takes a response schema and tools together."
    )


def gemini_output_schema_and_tools(model_name: str) -> bool:
    """Whether Gemini model ``model_name`` pairs a response schema with tools (on Vertex AI)."""
    return get_google_llm_variant() is GoogleLLMVariant.VERTEX_AI and is_gemini_model(model_name)


@deprecated("Use model.capabilities.output_schema_and_tools instead.")
def can_use_output_schema_with_tools(model: str | BaseLlm) -> bool:
    """Whether ``model`` accepts a response schema together with tools in one request.

    google-adk's ``utils.output_schema_utils`` name, deprecated there as here: read
    ``model.capabilities.output_schema_and_tools`` (what the flow reads). A model object
    answers with its ``capabilities``; a name is a Gemini model on Vertex AI
    (``GOOGLE_GENAI_USE_ENTERPRISE`` / ``GOOGLE_GENAI_USE_VERTEXAI``).
    """
    if not isinstance(model, str):
        return model.capabilities.output_schema_and_tools
    return gemini_output_schema_and_tools(model)
