"""``google.adk.labs.openai`` → here: OpenAI's Responses API as a model.

``OpenAIResponsesLlm(model="gpt-5")`` sends each request to OpenAI's Responses API through
LiteLLM (its ``openai/responses/`` route), so it needs the ``litellm`` extra:
``pip install 'adk-runtime[litellm]'``. google-adk's class calls the ``openai`` SDK
directly; the request and reply forms the agent sees are the same ``LlmRequest`` and
``LlmResponse``.
"""

from __future__ import annotations

from typing import Any

from adk_runtime.models.lite_llm import LiteLlm
from adk_runtime.models.llm_request import LlmRequest

__all__ = ["OpenAIResponsesLlm"]

_ROUTE = "openai/responses/"


class OpenAIResponsesLlm(LiteLlm):
    """An OpenAI model called through the Responses API.

    Attributes:
        model: OpenAI's model name (``"gpt-5"``), without a provider prefix.
    """

    def __init__(
        self,
        model: str = "gpt-5",
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        **kwargs: Any,
    ) -> None:
        """Build the model.

        Args:
            model: OpenAI's model name.
            api_key: The API key; by default LiteLLM reads ``OPENAI_API_KEY``.
            base_url: Another host speaking the same API (``OPENAI_BASE_URL`` otherwise).
            **kwargs: Further arguments of each ``litellm.acompletion`` call.
        """
        if api_key is not None:
            kwargs["api_key"] = api_key
        if base_url is not None:
            kwargs["api_base"] = base_url
        super().__init__(model=model, **kwargs)

    @classmethod
    def supported_models(cls) -> list[str]:
        """OpenAI's model names (``gpt-…``, ``o…``)."""
        return [r"gpt-.*", r"o\d.*"]

    def _arguments(self, llm_request: LlmRequest) -> dict[str, Any]:
        arguments = super()._arguments(llm_request)
        name = str(arguments["model"]).removeprefix("openai/").removeprefix("responses/")
        arguments["model"] = _ROUTE + name
        return arguments
