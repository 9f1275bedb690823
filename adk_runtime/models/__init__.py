"""Models the agents call (``google.adk.models`` → ``adk_runtime.models``).

Claude (``anthropic`` extra) and LiteLLM's providers (``litellm`` extra) load on first use,
so importing this package needs neither.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime._lazy import lazy_getattr
from adk_runtime.models._capabilities import LlmCapabilities
from adk_runtime.models._fallback_model import FallbackModel
from adk_runtime.models._service_tier import ServiceTier
from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.models.gemma_llm import Gemma
from adk_runtime.models.google_llm import Gemini
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.models.registry import LLMRegistry

if TYPE_CHECKING:
    from adk_runtime.models._gemma_ollama import Gemma3Ollama
    from adk_runtime.models.anthropic_llm import (
        AnthropicGenerateContentConfig,
        AnthropicLlm,
        Claude,
    )
    from adk_runtime.models.lite_llm import LiteLlm

# First match wins: Gemini's gemma-4 names come before Gemma's gemma-.*, and Gemma 3 on
# Ollama before LiteLLM's ollama/.*.
LLMRegistry.register(Gemini)
LLMRegistry.register(Gemma)
LLMRegistry.register_lazy(
    [r"ollama/gemma3.*", r"ollama_chat/gemma3.*"],
    f"{__name__}._gemma_ollama",
    "Gemma3Ollama",
    "litellm",
)

# Patterns as google-adk registers them: every claude- name, and LiteLLM's provider/ names.
LLMRegistry.register_lazy([r"claude-.*"], f"{__name__}.anthropic_llm", "Claude", "anthropic")
LLMRegistry.register_lazy(
    [
        rf"{provider}/.*"
        for provider in (
            "openai",
            "azure",
            "azure_ai",
            "groq",
            "anthropic",
            "bedrock",
            "ollama",
            "ollama_chat",
            "together_ai",
            "vertex_ai",
            "mistral",
            "deepseek",
            "fireworks_ai",
            "cohere",
            "databricks",
            "ai21",
        )
    ],
    f"{__name__}.lite_llm",
    "LiteLlm",
    "litellm",
)

__all__ = [
    "AnthropicGenerateContentConfig",
    "AnthropicLlm",
    "BaseLlm",
    "Claude",
    "FallbackModel",
    "Gemini",
    "Gemma",
    "Gemma3Ollama",
    "LLMRegistry",
    "LiteLlm",
    "LlmCapabilities",
    "LlmRequest",
    "LlmResponse",
    "ServiceTier",
]

__getattr__ = lazy_getattr(
    __name__,
    {
        "AnthropicGenerateContentConfig": "adk_runtime.models.anthropic_llm",
        "AnthropicLlm": "adk_runtime.models.anthropic_llm",
        "Claude": "adk_runtime.models.anthropic_llm",
        "Gemma3Ollama": "adk_runtime.models._gemma_ollama",
        "LiteLlm": "adk_runtime.models.lite_llm",
    },
    extras={
        "adk_runtime.models.anthropic_llm": "anthropic",
        "adk_runtime.models._gemma_ollama": "litellm",
        "adk_runtime.models.lite_llm": "litellm",
    },
)
