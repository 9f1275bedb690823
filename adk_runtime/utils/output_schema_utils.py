"""Whether a model can answer in an output schema while it also has tools.

google-adk's ``utils.output_schema_utils``, deprecated there as here: read
``model.capabilities.output_schema_and_tools`` (what the flow reads).
"""

from __future__ import annotations

from typing_extensions import deprecated

from adk_runtime.models._capabilities import gemini_output_schema_and_tools
from adk_runtime.models.base_llm import BaseLlm

__all__ = ["can_use_output_schema_with_tools"]


@deprecated("Use model.capabilities.output_schema_and_tools instead.")
def can_use_output_schema_with_tools(model: str | BaseLlm) -> bool:
    """Whether ``model`` accepts a response schema together with tools in one request.

    A model object answers with its ``capabilities``; a name is a Gemini model on Vertex AI
    (``GOOGLE_GENAI_USE_ENTERPRISE`` / ``GOOGLE_GENAI_USE_VERTEXAI``).
    """
    if not isinstance(model, str):
        return model.capabilities.output_schema_and_tools
    return gemini_output_schema_and_tools(model)
