"""Gemma 3 on the Gemini API, which takes no tools, JSON mode or system instruction for it.

Gemma 4 and later call functions natively: their names (``gemma-4-…``) resolve to
:class:`~adk_runtime.models.Gemini`. ``Gemma3Ollama`` (Gemma 3 through LiteLLM, e.g. on Ollama)
is imported from here on first use and needs the ``litellm`` extra.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, ClassVar

from google.genai import types

from adk_runtime.errors import ConfigurationError
from adk_runtime.models._litellm_convert import response_format
from adk_runtime.models._text_tools import call_from_text, tools_as_text
from adk_runtime.models.google_llm import Gemini
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse

if TYPE_CHECKING:
    from adk_runtime.models._gemma_ollama import Gemma3Ollama

__all__ = ["Gemma", "Gemma3Ollama"]


class Gemma(Gemini):
    """Gemma 3 models on the Gemini API (Google AI Studio), with function tools.

    The Gemini API serves Gemma 3 without function calling or a system instruction, so each
    request is rewritten: the agent's functions are described in the instruction and the
    model answers a call as JSON text, which becomes a function call again (see
    ``models._text_tools``); the instruction then goes first in the conversation, as a user
    turn. Built-in tools (``google_search``, …) cannot be used. The client always talks to the
    Gemini API (an API key), never to Vertex AI.

    Attributes:
        model: A Gemma 3 model, e.g. ``"gemma-3-27b-it"`` (``-12b-it`` and ``-27b-it`` follow
            the call format best).
    """

    model: str = "gemma-3-27b-it"

    @classmethod
    def supported_models(cls) -> list[str]:
        """Gemma names; Gemma 4 and later resolve to Gemini, registered first."""
        return [r"gemma-.*"]

    _vertexai: ClassVar[bool | None] = False  # Gemma 3 is served on the Gemini API only

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Call the model with the request rewritten for Gemma 3 (``llm_request`` is kept).

        Raises:
            ConfigurationError: The request names a model that is not a Gemma model.
            UnsupportedFeatureError: The request has a built-in tool.
        """
        model = llm_request.model or self.model
        if not model.startswith("gemma-"):
            raise ConfigurationError(
                f"Gemma serves Gemma models (gemma-…), not {model!r}: use Gemini or another "
                "model class for it."
            )
        request, names = tools_as_text(llm_request, model)
        _json_mode_as_instruction(request)
        _instruction_as_first_turn(request)
        async with aclosing(super().generate_content_async(request, stream)) as responses:
            async for response in responses:
                call_from_text(response, names)
                yield response


def _json_mode_as_instruction(request: LlmRequest) -> None:
    """Ask for JSON in the instruction: the Gemini API has no JSON mode for Gemma 3.

    A ``response_schema`` (an agent's ``output_schema``) or ``response_json_schema`` is
    written into the instruction as a JSON schema, and the config loses them and the JSON
    MIME type; the agent still validates the answer (a code fence around it is accepted).
    """
    asked = response_format(request.config)  # the config's schema, as OpenAI's API takes it
    if asked is None:
        return
    request.config = request.config.model_copy(
        update={"response_schema": None, "response_json_schema": None, "response_mime_type": None}
    )
    schema = asked.get("json_schema", {}).get("schema")
    wanted = (
        f" following this JSON schema: {json.dumps(schema, ensure_ascii=False)}" if schema else ""
    )
    request.append_instructions([f"Answer with a JSON value alone{wanted}. Write nothing else."])


def _instruction_as_first_turn(request: LlmRequest) -> None:
    """Move the system instruction to a user turn at the start of ``request.contents``."""
    parts = _instruction_parts(request.config.system_instruction)
    request.config = request.config.model_copy(update={"system_instruction": None})
    if not parts:
        return
    turn = types.Content(role="user", parts=parts)
    if not request.contents or request.contents[0] != turn:
        request.contents = [turn, *request.contents]


def _instruction_parts(instruction: Any) -> list[types.Part]:
    if instruction is None:
        return []
    if isinstance(instruction, str):
        return [types.Part(text=instruction)] if instruction else []
    if isinstance(instruction, types.Content):
        return list(instruction.parts or [])
    if isinstance(instruction, types.Part):
        return [instruction]
    if isinstance(instruction, list):
        return [part for item in instruction for part in _instruction_parts(item)]
    raise ConfigurationError(
        f"Gemma cannot send a system instruction of type {type(instruction).__name__}."
    )


def __getattr__(name: str) -> Any:
    if name != "Gemma3Ollama":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        module = importlib.import_module("adk_runtime.models._gemma_ollama")
    except ImportError as exc:
        raise ImportError(
            "Gemma3Ollama needs an optional dependency that is not installed "
            f"({exc.name or exc}): pip install 'adk-runtime[litellm]'"
        ) from exc
    return module.Gemma3Ollama
