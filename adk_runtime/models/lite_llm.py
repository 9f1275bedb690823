"""Models of every LiteLLM provider (``google.adk.models.lite_llm`` → here).

``LiteLlm(model="openai/gpt-4o")`` calls ``litellm.acompletion`` with OpenAI-style chat
messages. Needs the ``litellm`` extra: ``pip install 'adk-runtime[litellm]'``.
"""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import AsyncGenerator
from typing import Any

from google.genai import types
from pydantic import Field, PrivateAttr

from adk_runtime.models._capabilities import LlmCapabilities
from adk_runtime.models._litellm_convert import (
    content_to_messages,
    function_declaration_to_tool,
    message_to_response,
    response_format,
)
from adk_runtime.models._litellm_stream import StreamFolder
from adk_runtime.models._system_text import system_text
from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.utils.model_name_utils import is_gemini_model

# LiteLLM fetches its model price list from the internet when imported unless told to use
# the copy it ships; an application that wants the live list sets the variable itself.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

try:
    import litellm
    import openai
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "LiteLlm needs the 'litellm' package: pip install 'adk-runtime[litellm]'"
    ) from exc

__all__ = ["LiteLLMClient", "LiteLlm"]

logger = logging.getLogger(__name__)

_MANAGED_ARGS = ("llm_client", "messages", "tools", "stream")
_GENERATION_PARAMS = {
    "temperature": "temperature",
    "max_output_tokens": "max_completion_tokens",
    "top_p": "top_p",
    "top_k": "top_k",
    "seed": "seed",
    "stop_sequences": "stop",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
}


@functools.lru_cache(maxsize=256)
def _pairs_schema_and_tools(model: str, provider: str | None) -> bool:
    if not model:
        return False
    if provider is None:
        try:
            provider = litellm.get_llm_provider(model)[1]
        except Exception:  # a name LiteLLM cannot route: its prefix, if any
            provider = model.partition("/")[0] if "/" in model else None
    name = model.partition("/")[2] if provider and model.startswith(f"{provider}/") else model
    if is_gemini_model(name) and provider != "vertex_ai":
        return False
    if provider == "anthropic" or "claude" in name.lower():
        return False
    try:
        return bool(litellm.supports_response_schema(model=name, custom_llm_provider=provider))
    except Exception:  # LiteLLM does not know the model
        return False


class LiteLLMClient:
    """The call LiteLlm makes: ``litellm.acompletion`` (replace it to route elsewhere)."""

    async def acompletion(self, model: Any, messages: Any, tools: Any, **kwargs: Any) -> Any:
        """Call ``litellm.acompletion`` with these arguments."""
        return await litellm.acompletion(model=model, messages=messages, tools=tools, **kwargs)


class LiteLlm(BaseLlm):
    """A model of any provider LiteLLM serves (``"openai/gpt-4o"``, ``"ollama_chat/llama3"``).

    Credentials come from the environment variables LiteLLM reads for the provider, or from
    keyword arguments: every argument besides ``model`` (``api_base``, ``api_key``,
    ``timeout``, ``num_retries``, ...) is passed to each ``litellm.acompletion`` call.

    Attributes:
        model: LiteLLM's ``provider/model`` name.
        llm_client: What sends the request (``LiteLLMClient`` by default).
    """

    llm_client: LiteLLMClient = Field(default_factory=LiteLLMClient, exclude=True)

    _additional_args: dict[str, Any] = PrivateAttr(default_factory=dict)

    def __init__(self, model: str, **kwargs: Any) -> None:
        """Build the model; ``kwargs`` go to every ``acompletion`` call.

        Args:
            model: LiteLLM's ``provider/model`` name.
            **kwargs: ``llm_client``, or arguments of ``litellm.acompletion``.
        """
        client = kwargs.pop("llm_client", None)
        fields = {"llm_client": client} if client is not None else {}
        super().__init__(model=model, **fields)
        self._additional_args = {k: v for k, v in kwargs.items() if k not in _MANAGED_ARGS}

    @property
    def capabilities(self) -> LlmCapabilities:
        """Whether the routed model pairs a response schema with tools (LiteLLM's model list).

        Gemini outside Vertex AI and Claude (Anthropic's API) do not; otherwise LiteLLM's
        ``supports_response_schema`` decides, and a model it does not know does not.
        """
        provider = self._additional_args.get("custom_llm_provider")
        return LlmCapabilities(
            output_schema_and_tools=_pairs_schema_and_tools(self.model, provider)
        )

    @classmethod
    def supported_models(cls) -> list[str]:
        """LiteLLM names are ``provider/model``; the registry lists the common providers."""
        return []

    def _arguments(self, llm_request: LlmRequest) -> dict[str, Any]:
        config = llm_request.config
        messages: list[dict[str, Any]] = []
        system = system_text(config)
        if system:
            messages.append({"role": "system", "content": system})
        for content in llm_request.contents:
            messages.extend(content_to_messages(content))
        tools = [
            function_declaration_to_tool(declaration)
            for tool in config.tools or []
            if isinstance(tool, types.Tool)
            for declaration in tool.function_declarations or []
        ]
        arguments: dict[str, Any] = {
            "model": llm_request.model or self.model,
            "messages": messages,
            "tools": tools or None,
        }
        schema_format = response_format(config)
        if schema_format is not None:
            arguments["response_format"] = schema_format
        dumped = config.model_dump(exclude_none=True)
        for name, target in _GENERATION_PARAMS.items():
            if name in dumped:
                arguments[target] = dumped[name]
        arguments.update(self._additional_args)
        if "functions" in self._additional_args:
            arguments["tools"] = None  # LiteLLM takes tools or functions, not both
        return arguments

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Call the model through LiteLLM; an API error becomes a response with ``error_code``.

        Yields:
            The reply; when streaming, partial responses as text, reasoning and tool calls
            arrive, then the aggregated reply.
        """
        if not any(content.role == "user" for content in llm_request.contents):
            # Chat models want a user turn to answer.
            llm_request.contents.append(
                types.Content(
                    role="user",
                    parts=[
                        types.Part(
                            text="Handle the requests as specified in the System Instruction."
                        )
                    ],
                )
            )
        arguments = self._arguments(llm_request)
        try:
            if not stream:
                response = await self.llm_client.acompletion(**arguments)
                choice = response.choices[0]
                yield message_to_response(
                    choice.message,
                    reason=choice.finish_reason,
                    usage=getattr(response, "usage", None),
                    model=getattr(response, "model", None) or arguments["model"],
                )
                return
            arguments["stream"] = True
            arguments["stream_options"] = {"include_usage": True}
            chunks = await self.llm_client.acompletion(**arguments)
            folder = StreamFolder(arguments["model"])
            async for chunk in chunks:
                for partial in folder.add(chunk):
                    yield partial
            yield folder.close()
        except openai.OpenAIError as exc:  # LiteLLM's exceptions all derive from it
            yield _error_response(exc)


def _error_response(exc: Exception) -> LlmResponse:
    message = str(getattr(exc, "message", None) or type(exc).__name__)
    # LiteLLM reports these with status 500 though no server answered so: a connection that
    # failed (for some providers as an InternalServerError), or a reply its own checks refused.
    if _connection_failed(exc):
        return LlmResponse(error_code="CONNECTION_ERROR", error_message=message)
    if isinstance(exc, litellm.exceptions.APIResponseValidationError):
        return LlmResponse(error_code="RESPONSE_VALIDATION_ERROR", error_message=message)
    status = getattr(exc, "status_code", None)
    return LlmResponse(
        error_code=str(status) if status else type(exc).__name__,
        error_message=message,
    )


def _connection_failed(exc: BaseException) -> bool:
    """Whether ``exc`` comes from a connection that failed (no server answered)."""
    seen: BaseException | None = exc
    for _ in range(16):  # the chain LiteLLM builds is a few links long
        if seen is None:
            return False
        timed_out = isinstance(seen, (openai.APITimeoutError, litellm.exceptions.Timeout))
        if timed_out:  # the request may have been served: its status (408) stands
            return False
        if isinstance(seen, (openai.APIConnectionError, ConnectionError)):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
