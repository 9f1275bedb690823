"""Whether a model can answer in an output schema while it also has tools.

google-adk's ``utils.output_schema_utils`` (deprecated there in favour of the model's own
capabilities). adk_runtime's agents do not need it: an agent with an ``output_schema`` and
tools always gets its structured answer through ``set_model_response``, on every model.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from adk_runtime.utils.model_name_utils import is_gemini_model
from adk_runtime.utils.variant_utils import GoogleLLMVariant, get_google_llm_variant

if TYPE_CHECKING:
    from adk_runtime.models.base_llm import BaseLlm

__all__ = ["can_use_output_schema_with_tools"]


def can_use_output_schema_with_tools(model: str | BaseLlm) -> bool:
    """Whether ``model`` accepts a response schema together with tools in one request.

    A model object that reports ``capabilities.output_schema_and_tools`` decides; a
    ``LiteLlm`` can (LiteLLM handles the pair for its providers); otherwise only Gemini
    models on Vertex AI can (``GOOGLE_GENAI_USE_ENTERPRISE`` / ``GOOGLE_GENAI_USE_VERTEXAI``).
    """
    if not isinstance(model, str):
        capabilities = getattr(model, "capabilities", None)
        reported = getattr(capabilities, "output_schema_and_tools", None)
        if isinstance(reported, bool):
            return reported
        lite_llm = sys.modules.get("adk_runtime.models.lite_llm")
        if lite_llm is not None and isinstance(model, lite_llm.LiteLlm):
            return True
        model = model.model
    return get_google_llm_variant() is GoogleLLMVariant.VERTEX_AI and is_gemini_model(model)
