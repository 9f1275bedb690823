"""Claude models on the ``anthropic`` package's async client (google-adk's ``anthropic_llm``).

:class:`AnthropicLlm` calls the Anthropic API (``ANTHROPIC_API_KEY``); :class:`Claude` calls
Claude on Vertex AI (``GOOGLE_CLOUD_PROJECT`` / ``GOOGLE_CLOUD_LOCATION``). Both need the
``anthropic`` extra: ``pip install 'adk-runtime[anthropic]'``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
import re
import warnings
from collections.abc import AsyncGenerator
from functools import cached_property
from typing import Any

from google.genai import types
from pydantic import Field

from adk_runtime.errors import ConfigurationError
from adk_runtime.models._anthropic_config import AnthropicGenerateContentConfig
from adk_runtime.models._anthropic_convert import (
    ToolIdMapper,
    content_block_to_part,
    content_to_message_param,
    function_declaration_to_tool_param,
    lowercase_schema_types,
    message_to_generate_content_response,
    part_to_message_block,
    to_claude_role,
    to_google_genai_finish_reason,
)
from adk_runtime.models._anthropic_stream import StreamFolder
from adk_runtime.models._system_text import system_text
from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse

try:
    import anthropic
    from anthropic import AsyncAnthropic
    from anthropic.lib.vertex import AsyncAnthropicVertex
    from anthropic.resources.messages import AsyncMessages
except ImportError as exc:  # pragma: no cover - exercised without the extra only
    raise ImportError(
        "Claude models need the 'anthropic' package: pip install 'adk-runtime[anthropic]'"
    ) from exc

logger = logging.getLogger(__name__)

__all__ = [
    "AnthropicGenerateContentConfig",
    "AnthropicLlm",
    "Claude",
    "content_block_to_part",
    "content_to_message_param",
    "function_declaration_to_tool_param",
    "message_to_generate_content_response",
    "part_to_message_block",
    "to_claude_role",
    "to_google_genai_finish_reason",
]

_SCHEMA_TOOL = "structured_output"
_SDK_TAKES_SAMPLING = "temperature" in inspect.signature(AsyncMessages.create).parameters
_SCHEMA_KEY = "response"


def _build_anthropic_thinking_param(
    config: types.GenerateContentConfig | None,
) -> dict[str, Any] | None:
    """Claude's ``thinking`` parameter for ``config.thinking_config`` (None: not sent).

    A budget of 0 disables thinking, a negative budget lets the model choose (adaptive), a
    positive one is a token budget.

    Raises:
        ValueError: A thinking config without a budget.
    """
    if config is None or config.thinking_config is None:
        return None
    budget = config.thinking_config.thinking_budget
    if budget is None:
        raise ValueError(
            "Claude needs an explicit thinking_budget in thinking_config: 0 turns thinking "
            "off, -1 lets the model decide, a positive number (at least 1024) is a budget."
        )
    if budget == 0:
        return {"type": "disabled"}
    if budget < 0:
        return {"type": "adaptive", "display": "summarized"}
    return {"type": "enabled", "budget_tokens": budget}


def _effort(config: types.GenerateContentConfig | None) -> str | None:
    if isinstance(config, AnthropicGenerateContentConfig) and config.effort:
        return config.effort
    if config is not None and config.thinking_config and config.thinking_config.thinking_level:
        warnings.warn(
            "Claude ignores thinking_config.thinking_level; use "
            "AnthropicGenerateContentConfig(effort=...) to choose the reasoning effort.",
            UserWarning,
            stacklevel=4,
        )
    return None


def _declarations(config: types.GenerateContentConfig) -> list[types.FunctionDeclaration]:
    found: list[types.FunctionDeclaration] = []
    for tool in config.tools or []:
        if isinstance(tool, types.Tool):
            found.extend(tool.function_declarations or [])
    return found


class _SchemaTool:
    """A response schema sent as a tool whose input is the answer (Claude's JSON mode)."""

    def __init__(self, schema: Any) -> None:
        if isinstance(schema, types.Schema):
            json_schema: Any = schema.model_dump(by_alias=True, exclude_none=True)
        elif isinstance(schema, dict):
            json_schema = dict(schema)
        elif isinstance(schema, type) and hasattr(schema, "model_json_schema"):
            json_schema = schema.model_json_schema()
        else:
            from pydantic import TypeAdapter

            json_schema = TypeAdapter(schema).json_schema()
        lowercase_schema_types(json_schema)
        # The input of a tool is an object: anything else is wrapped in one.
        self.nested = json_schema.get("type") != "object"
        if self.nested:
            json_schema = {
                "type": "object",
                "properties": {_SCHEMA_KEY: json_schema},
                "required": [_SCHEMA_KEY],
                **({"$defs": json_schema.pop("$defs")} if "$defs" in json_schema else {}),
            }
        self.param = {
            "name": _SCHEMA_TOOL,
            "description": "Answer by calling this tool with the response as its input.",
            "input_schema": json_schema,
        }

    def choice(self, thinking: dict[str, Any] | None) -> dict[str, Any]:
        # Forcing a tool is refused while thinking: then the model is only offered it.
        if thinking is not None and thinking.get("type") in ("enabled", "adaptive"):
            return {"type": "auto"}
        return {"type": "tool", "name": _SCHEMA_TOOL}

    def unwrap(self, response: LlmResponse) -> LlmResponse:
        """Replace the tool call of the answer by its JSON as text."""
        if response.content is None or not response.content.parts:
            return response
        parts: list[types.Part] = []
        for part in response.content.parts:
            call = part.function_call
            if call is None or call.name != _SCHEMA_TOOL:
                parts.append(part)
                continue
            args = dict(call.args or {})
            value = args.get(_SCHEMA_KEY) if self.nested else args
            parts.append(types.Part(text=json.dumps(value)))
        return response.model_copy(update={"content": types.Content(role="model", parts=parts)})


class AnthropicLlm(BaseLlm):
    """Claude on the Anthropic API, through ``anthropic.AsyncAnthropic``.

    The client reads ``ANTHROPIC_API_KEY`` (and ``ANTHROPIC_BASE_URL``) from the
    environment, or is passed ready-made as ``client``.

    Attributes:
        model: The model name, e.g. ``"claude-sonnet-4-20250514"``.
        max_tokens: The output token limit when the config sets no ``max_output_tokens``.
        client: A configured ``AsyncAnthropic`` (or ``AsyncAnthropicVertex``) client.
    """

    model: str = "claude-sonnet-4-20250514"
    max_tokens: int = 8192
    client: Any = Field(default=None, exclude=True)

    @classmethod
    def supported_models(cls) -> list[str]:
        """Every ``claude-`` model name."""
        return [r"claude-.*"]

    def _model_name(self, requested: str | None) -> str:
        name = requested or self.model
        match = re.search(
            r"projects/[^/]+/locations/[^/]+/(?:publishers/anthropic/models|endpoints)/([^/:]+)",
            name,
        )
        return match.group(1) if match else name

    @cached_property
    def _anthropic_client(self) -> Any:
        """The client: ``client`` when given, else one built from the environment."""
        if self.client is not None:
            return self.client
        return self._make_client()

    def _make_client(self) -> Any:
        client = AsyncAnthropic()
        if not (client.api_key or client.auth_token):
            raise ConfigurationError(
                "No Anthropic credential found: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN), "
                "or pass a configured anthropic.AsyncAnthropic as `client`."
            )
        return client

    async def _client(self) -> Any:
        if "_anthropic_client" in self.__dict__ or self.client is not None:
            return self._anthropic_client
        # Building a client reads certificates from disk: keep that off the event loop.
        return await asyncio.to_thread(lambda: self._anthropic_client)

    async def aclose(self) -> None:
        """Close the HTTP connections of a client this model built (not one passed in)."""
        client = vars(self).pop("_anthropic_client", None)
        if client is not None and client is not self.client:
            await client.close()

    def _request_kwargs(self, llm_request: LlmRequest) -> tuple[dict[str, Any], _SchemaTool | None]:
        config = llm_request.config
        ids = ToolIdMapper()
        messages = [content_to_message_param(content, ids) for content in llm_request.contents]
        kwargs: dict[str, Any] = {
            "model": self._model_name(llm_request.model),
            "messages": [message for message in messages if message["content"]],
            "max_tokens": config.max_output_tokens or self.max_tokens,
        }
        system = system_text(config)
        if system:
            kwargs["system"] = system
        declarations = _declarations(config)
        if declarations:
            kwargs["tools"] = [function_declaration_to_tool_param(d) for d in declarations]
            kwargs["tool_choice"] = {"type": "auto"}
        thinking = _build_anthropic_thinking_param(config)
        if thinking is not None:
            kwargs["thinking"] = thinking
        schema_tool: _SchemaTool | None = None
        if config.response_schema is not None and not declarations:
            schema_tool = _SchemaTool(config.response_schema)
            kwargs["tools"] = [schema_tool.param]
            kwargs["tool_choice"] = schema_tool.choice(thinking)
        effort = _effort(config)
        if effort is not None:
            kwargs["output_config"] = {"effort": effort}
        self._add_sampling(kwargs, config, thinking, effort)
        return kwargs, schema_tool

    @staticmethod
    def _add_sampling(
        kwargs: dict[str, Any],
        config: types.GenerateContentConfig,
        thinking: dict[str, Any] | None,
        effort: str | None,
    ) -> None:
        sampling = {"temperature": config.temperature, "top_p": config.top_p}
        sampling["top_k"] = int(config.top_k) if config.top_k is not None else None
        given = {key: value for key, value in sampling.items() if value is not None}
        reasoning = effort is not None or (
            thinking is not None and thinking["type"] in ("enabled", "adaptive")
        )
        if reasoning and given:
            # Claude refuses sampling settings while it reasons.
            warnings.warn(
                "temperature, top_p and top_k are not sent to Claude while thinking or an "
                "effort is set.",
                UserWarning,
                stacklevel=4,
            )
        elif given and _SDK_TAKES_SAMPLING:
            kwargs.update(given)
        elif given:
            # Newer SDKs dropped these arguments; the API still reads them from the body.
            kwargs["extra_body"] = given
        if config.stop_sequences:
            kwargs["stop_sequences"] = list(config.stop_sequences)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Call Claude; an API error becomes a response with ``error_code`` set.

        Yields:
            The reply; when streaming, partial responses as text, thoughts and tool calls
            arrive, then the aggregated reply.
        """
        kwargs, schema_tool = self._request_kwargs(llm_request)
        client = await self._client()
        try:
            if not stream:
                message = await client.messages.create(**kwargs)
                response = message_to_generate_content_response(message)
                yield schema_tool.unwrap(response) if schema_tool else response
                return
            events = await client.messages.create(stream=True, **kwargs)
            folder = StreamFolder(
                model=kwargs["model"],
                schema_tool=_SCHEMA_TOOL if schema_tool else None,
                schema_text=schema_tool is not None and not schema_tool.nested,
            )
            async for event in events:
                for partial in folder.add(event):
                    yield partial
            final = folder.close()
            yield schema_tool.unwrap(final) if schema_tool else final
        except anthropic.APIStatusError as exc:
            yield _error_response(str(exc.status_code), exc.body, exc.message)
        except anthropic.APIConnectionError as exc:
            yield _error_response("CONNECTION_ERROR", None, str(exc) or "Could not reach the API.")


def _error_response(code: str, body: object, fallback: str) -> LlmResponse:
    message = fallback
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            message = error["message"]
    if code == "429":
        message += " (rate limited: retry later or lower the request rate)"
    return LlmResponse(error_code=code, error_message=message)


class Claude(AnthropicLlm):
    """Claude served from Vertex AI, through ``anthropic.AsyncAnthropicVertex``.

    The project and region come from ``GOOGLE_CLOUD_PROJECT`` and
    ``GOOGLE_CLOUD_LOCATION``, or from a model resource name
    (``projects/P/locations/L/publishers/anthropic/models/M``); credentials are Google's
    application default credentials. Pass ``client`` to configure the client yourself.
    """

    model: str = "claude-3-5-sonnet-v2@20241022"

    def _make_client(self) -> Any:
        project = os.environ.get("GOOGLE_CLOUD_PROJECT")
        region = os.environ.get("GOOGLE_CLOUD_LOCATION")
        match = re.match(r"projects/([^/]+)/locations/([^/]+)/", self.model)
        if match:
            project, region = match.group(1), match.group(2)
        if not project or not region:
            raise ConfigurationError(
                f"Claude model {self.model!r} is served from Vertex AI: set "
                "GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION, or use AnthropicLlm to call "
                "the Anthropic API with ANTHROPIC_API_KEY."
            )
        return AsyncAnthropicVertex(project_id=project, region=region)
