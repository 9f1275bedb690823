"""Which Google model API the Gemini client talks to (google-adk's ``utils.variant_utils``)."""

from __future__ import annotations

import os
from enum import Enum

__all__ = ["GoogleLLMVariant", "get_google_llm_variant"]


class GoogleLLMVariant(Enum):
    """The API behind Gemini models: Vertex AI (Google Cloud) or the Gemini API (API key)."""

    VERTEX_AI = "VERTEX_AI"
    GEMINI_API = "GEMINI_API"


def get_google_llm_variant() -> GoogleLLMVariant:
    """The API google-genai's client picks from the environment.

    ``GOOGLE_GENAI_USE_ENTERPRISE`` when set, else ``GOOGLE_GENAI_USE_VERTEXAI``: ``true`` or
    ``1`` (any case) means Vertex AI, as google-genai parses them.
    """
    value = os.environ.get("GOOGLE_GENAI_USE_ENTERPRISE")
    if value is None:
        value = os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "")
    return (
        GoogleLLMVariant.VERTEX_AI
        if value.lower() in ("true", "1")
        else GoogleLLMVariant.GEMINI_API
    )
