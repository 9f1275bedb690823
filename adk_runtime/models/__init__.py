"""Models the agents call (``google.adk.models`` → ``adk_runtime.models``)."""

from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.models.google_llm import Gemini
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.models.registry import LLMRegistry

LLMRegistry.register(Gemini)

__all__ = ["BaseLlm", "Gemini", "LLMRegistry", "LlmRequest", "LlmResponse"]
