"""Gemma3Ollama (public as ``adk_runtime.models.gemma_llm.Gemma3Ollama``): Gemma 3 via LiteLLM."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Any

from adk_runtime.models._text_tools import call_from_text, tools_as_text
from adk_runtime.models.lite_llm import LiteLlm
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse

__all__ = ["Gemma3Ollama"]


class Gemma3Ollama(LiteLlm):
    """Gemma 3 through LiteLLM (Ollama by default), with function tools written in text.

    Ollama serves Gemma 3 without tool calling, so the agent's functions are described in
    the instruction and a JSON call in the reply becomes a function call, as for
    :class:`~adk_runtime.models.gemma_llm.Gemma`. Any LiteLLM route to a Gemma 3 model works
    (``ollama/gemma3:12b``, ``ollama_chat/gemma3:27b``, or an OpenAI-compatible server's
    ``openai/…`` with ``api_base``); model names ``ollama/gemma3…`` and
    ``ollama_chat/gemma3…`` resolve to this class. For Gemma 4 and later use ``LiteLlm``.
    """

    def __init__(self, model: str = "ollama/gemma3:12b", **kwargs: Any) -> None:
        """Build the model; ``kwargs`` go to every ``litellm.acompletion`` call.

        Args:
            model: LiteLLM's ``provider/model`` name of a Gemma 3 model.
            **kwargs: ``llm_client``, or arguments of ``litellm.acompletion``.
        """
        super().__init__(model=model, **kwargs)

    @classmethod
    def supported_models(cls) -> list[str]:
        """Gemma 3 on Ollama."""
        return [r"ollama/gemma3.*", r"ollama_chat/gemma3.*"]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Call the model with the functions in the instruction (``llm_request`` is kept).

        Raises:
            UnsupportedFeatureError: The request has a built-in tool.
        """
        request, names = tools_as_text(llm_request, llm_request.model or self.model)
        async with aclosing(super().generate_content_async(request, stream)) as responses:
            async for response in responses:
                call_from_text(response, names)
                yield response
