"""Requests to Gemini's Interactions API: google-genai ``types`` into the API's parameters.

The public names are in :mod:`adk_runtime.models.interactions_utils`.
"""

from __future__ import annotations

import base64
import logging
import warnings
from typing import Any

from google.genai import types

from adk_runtime.models._service_tier import ServiceTier
from adk_runtime.models._system_text import system_text
from adk_runtime.models.llm_request import LlmRequest

__all__ = [
    "MEDIA_KINDS",
    "build_generation_config",
    "contents_to_steps",
    "convert_part_to_interaction_content",
    "convert_tools_config_to_interactions_format",
    "create_arguments",
    "extract_system_instruction",
    "latest_turn",
    "part_to_step",
]

logger = logging.getLogger("adk_runtime.models.interactions_utils")  # one logger, as public

MEDIA_KINDS = ("image", "audio", "video")
_SAMPLING_CARRIED = ("temperature", "top_p")
_SAMPLING_DROPPED = ("top_k", "presence_penalty", "frequency_penalty")
_warned_dropped: set[str] = set()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _media_kind(mime_type: str) -> str:
    kind = mime_type.partition("/")[0]
    return kind if kind in MEDIA_KINDS else "document"


def _media_content(part: types.Part) -> dict[str, Any] | None:
    if part.inline_data is not None:
        blob = part.inline_data
        mime_type = blob.mime_type or ""
        content: dict[str, Any] = {"type": _media_kind(mime_type), "mime_type": mime_type}
        if blob.data is not None:
            content["data"] = _b64(blob.data)
        return content
    if part.file_data is not None:
        file = part.file_data
        mime_type = file.mime_type or ""
        content = {"type": _media_kind(mime_type), "mime_type": mime_type}
        if file.file_uri is not None:
            content["uri"] = file.file_uri
        return content
    return None


def _code_arguments(code: types.ExecutableCode) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    if code.code is not None:
        arguments["code"] = code.code
    if code.language == types.Language.PYTHON:
        arguments["language"] = "python"  # the API takes lower-case language names
    return arguments


def _failed(outcome: types.Outcome | None) -> bool:
    return outcome in (types.Outcome.OUTCOME_FAILED, types.Outcome.OUTCOME_DEADLINE_EXCEEDED)


def _function_result(response: types.FunctionResponse) -> dict[str, Any]:
    result: Any = response.response if response.response is not None else {}
    return {
        "type": "function_result",
        "name": response.name or "",
        "call_id": response.id or "",
        "result": result,
        # google-genai's convention: a failed call answers {"error": ...}.
        "is_error": isinstance(result, dict) and "error" in result,
    }


def part_to_step(part: types.Part, role: str = "user") -> dict[str, Any] | None:
    """The Interactions API step for one part of a ``role`` content (None: nothing to send).

    Text and media become a ``user_input`` or ``model_output`` step by the role; calls,
    results, thoughts and code execution are steps of their own kind.
    """
    if part.function_call is not None:
        call = part.function_call
        return {
            "type": "function_call",
            "id": call.id or "",
            "name": call.name or "",
            "arguments": dict(call.args or {}),
        }
    if part.function_response is not None:
        return _function_result(part.function_response)
    if part.thought:
        # A thought goes back only for its signature (Gemini 3 needs it echoed).
        if part.thought_signature is None:
            return None
        return {"type": "thought", "signature": _b64(part.thought_signature)}
    if part.executable_code is not None:
        arguments = _code_arguments(part.executable_code)
        return {"type": "code_execution_call", "id": "", "arguments": arguments}
    if part.code_execution_result is not None:
        result = part.code_execution_result
        return {
            "type": "code_execution_result",
            "call_id": "",
            "result": result.output or "",
            "is_error": _failed(result.outcome),
        }
    text = None if part.text is None else {"type": "text", "text": part.text}
    content = text or _media_content(part)
    if content is None:
        return None
    kind = "model_output" if role == "model" else "user_input"
    return {"type": kind, "content": [content]}


def contents_to_steps(contents: list[types.Content]) -> list[dict[str, Any]]:
    """The input steps for ``contents``, part by part, in order."""
    steps: list[dict[str, Any]] = []
    for content in contents:
        for part in content.parts or []:
            step = part_to_step(part, content.role or "user")
            if step is not None:
                steps.append(step)
    return steps


def convert_part_to_interaction_content(part: types.Part) -> dict[str, Any] | None:
    """The flat interaction content of ``part`` (google-adk's older form; deprecated).

    Prefer the step form the requests use (:func:`part_to_step`).
    """
    warnings.warn(
        "convert_part_to_interaction_content is deprecated: requests are sent as steps",
        DeprecationWarning,
        stacklevel=2,
    )
    step = part_to_step(part)
    if step is None:
        return None
    if step["type"] in ("user_input", "model_output"):
        return dict(step["content"][0])
    if step["type"] == "function_result":
        return {key: value for key, value in step.items() if key != "is_error"}
    if step["type"] == "thought" and part.text is not None:
        return {"type": "text", "text": part.text}
    return step


def _function_tool(declaration: types.FunctionDeclaration) -> dict[str, Any]:
    tool: dict[str, Any] = {"type": "function"}
    if declaration.name is not None:
        tool["name"] = declaration.name
    if declaration.description:
        tool["description"] = declaration.description
    if declaration.parameters_json_schema is not None:
        tool["parameters"] = declaration.parameters_json_schema
    elif declaration.parameters is not None and declaration.parameters.properties:
        schema = declaration.parameters.json_schema
        tool["parameters"] = schema.model_dump(mode="json", exclude_none=True, by_alias=True)
    return tool


_BUILT_IN_TOOLS = ("google_search", "code_execution", "url_context", "computer_use")


def convert_tools_config_to_interactions_format(
    config: types.GenerateContentConfig,
) -> list[dict[str, Any]]:
    """The Interactions API tools for the request's tools.

    Each function declaration is a ``function`` tool (its parameters as JSON Schema); Google
    Search, code execution, URL context and computer use are built-in tools by type. Tools
    of other kinds (callables not yet declared, retrieval) are not sent.
    """
    tools: list[dict[str, Any]] = []
    for tool in config.tools or []:
        if not isinstance(tool, types.Tool):
            continue
        tools.extend(_function_tool(d) for d in tool.function_declarations or [])
        tools.extend({"type": name} for name in _BUILT_IN_TOOLS if getattr(tool, name))
    return tools


def _warn_dropped(config: types.GenerateContentConfig) -> None:
    dropped = [
        name
        for name in _SAMPLING_DROPPED
        if getattr(config, name) is not None and name not in _warned_dropped
    ]
    if dropped:
        _warned_dropped.update(dropped)
        logger.warning(
            "The Interactions API has no field for %s: the model samples with its defaults. "
            "Unset them, or use Gemini without use_interactions_api to have them applied.",
            ", ".join(dropped),
        )


def build_generation_config(config: types.GenerateContentConfig) -> dict[str, Any]:
    """The Interactions API ``generation_config`` for ``config``.

    Carried: ``max_output_tokens``, ``stop_sequences``, ``seed``, ``temperature``,
    ``top_p`` and the thinking level (``thinking_config.include_thoughts`` asks for thought
    summaries). ``top_k`` and the penalties have no field there: setting them logs a warning
    once per process.
    """
    generation: dict[str, Any] = {}
    if config.max_output_tokens is not None:
        generation["max_output_tokens"] = config.max_output_tokens
    if config.stop_sequences:
        generation["stop_sequences"] = list(config.stop_sequences)
    if config.seed is not None:
        generation["seed"] = config.seed
    for name in _SAMPLING_CARRIED:
        value = getattr(config, name)
        if value is not None:
            generation[name] = value
    thinking = config.thinking_config
    if thinking is not None:
        level = thinking.thinking_level
        if level is not None and level != types.ThinkingLevel.THINKING_LEVEL_UNSPECIFIED:
            generation["thinking_level"] = level.value.lower()
        if thinking.include_thoughts is not None:
            generation["thinking_summaries"] = "auto" if thinking.include_thoughts else "none"
    _warn_dropped(config)
    return generation


def extract_system_instruction(config: types.GenerateContentConfig) -> str | None:
    """The system instruction as one string (the texts of its parts, one per line)."""
    return system_text(config, "\n")


def _response_format(config: types.GenerateContentConfig) -> dict[str, Any]:
    """``response_format`` and ``response_mime_type`` for a structured-output request."""
    schema: Any = config.response_json_schema
    if schema is None and isinstance(config.response_schema, types.Schema):
        schema = config.response_schema.json_schema.model_dump(
            mode="json", exclude_none=True, by_alias=True
        )
    if schema is None:
        return {}
    return {
        "response_format": schema,
        "response_mime_type": config.response_mime_type or "application/json",
    }


def latest_turn(contents: list[types.Content]) -> list[types.Content]:
    """What a chained request sends: the trailing user contents.

    The interaction named by ``previous_interaction_id`` holds everything before them. The
    thought signatures of the model turn just before go along (Gemini wants them back).
    """
    end = len(contents)
    start = end
    while start > 0 and contents[start - 1].role == "user":
        start -= 1
    latest = list(contents[start:end])
    if start > 0:
        signed = [part for part in contents[start - 1].parts or [] if part.thought_signature]
        if signed:
            latest.insert(0, types.Content(role="model", parts=signed))
    return latest


def create_arguments(
    request: LlmRequest, *, stream: bool, service_tier: ServiceTier | str | None
) -> dict[str, Any]:
    """The arguments of ``interactions.create`` for ``request`` (all but streaming).

    Raises:
        ValueError: A deferred tier with streaming: a deferred call returns before the
            model answers, so there is nothing to stream.
    """
    tier = service_tier.value if isinstance(service_tier, ServiceTier) else service_tier
    if tier == ServiceTier.DEFERRED.value and stream:
        raise ValueError(
            "service_tier='deferred' cannot stream: a deferred interaction is queued and "
            "answered later. Use StreamingMode.NONE for deferred runs."
        )
    contents = request.contents
    if request.previous_interaction_id:
        contents = latest_turn(contents)
    config = request.config
    arguments: dict[str, Any] = {"model": request.model, "input": contents_to_steps(contents)}
    optional: dict[str, Any] = {
        "system_instruction": extract_system_instruction(config),
        "tools": convert_tools_config_to_interactions_format(config) or None,
        "generation_config": build_generation_config(config) or None,
        "previous_interaction_id": request.previous_interaction_id,
        "service_tier": tier,
        **_response_format(config),
    }
    arguments.update({key: value for key, value in optional.items() if value is not None})
    if tier == ServiceTier.DEFERRED.value:
        arguments["background"] = True  # the API takes a deferred call only in the background
    return arguments
