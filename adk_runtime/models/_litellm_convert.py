"""Translation between google-genai contents and OpenAI-style chat messages (LiteLLM's shape).

Plain dicts out; LiteLLM's response objects read by attribute or key, so this module imports
without the ``litellm`` extra.
"""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

from google.genai import types

from adk_runtime.models._anthropic_convert import lowercase_schema_types
from adk_runtime.models._unshown_media import bare_mime_type, unshown_media_note
from adk_runtime.models.llm_response import LlmResponse

__all__ = [
    "content_to_messages",
    "finish_reason",
    "function_declaration_to_tool",
    "get",
    "message_to_response",
    "parse_arguments",
    "response_format",
    "usage_to_metadata",
]

logger = logging.getLogger(__name__)

_FINISH_REASONS = {
    "stop": types.FinishReason.STOP,
    "tool_calls": types.FinishReason.STOP,
    "function_call": types.FinishReason.STOP,
    "length": types.FinishReason.MAX_TOKENS,
    "content_filter": types.FinishReason.SAFETY,
}
_FILE_TYPES = ("application/pdf", "application/json")


def get(obj: Any, name: str) -> Any:
    """``obj[name]`` for a dict, ``obj.name`` otherwise (None when absent)."""
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def finish_reason(reason: str | None) -> types.FinishReason | None:
    """google-genai's finish reason for an OpenAI-style one."""
    if reason is None:
        return None
    return _FINISH_REASONS.get(reason, types.FinishReason.OTHER)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(value)


def _sendable(mime_type: str) -> bool:
    """Whether inline data of this type can be sent through LiteLLM (``_blob_item``'s kinds)."""
    mime = bare_mime_type(mime_type)
    return mime.startswith(("text/", "audio/", "image/", "video/")) or mime in _FILE_TYPES


def _blob_item(data: bytes, mime_type: str) -> dict[str, Any]:
    """The content item for inline data; a note in its place for a type LiteLLM cannot send."""
    mime = bare_mime_type(mime_type)
    if not _sendable(mime):
        return {"type": "text", "text": unshown_media_note(mime, "LiteLLM")}
    if mime.startswith("text/"):
        return {"type": "text", "text": data.decode("utf-8", errors="replace")}
    encoded = base64.b64encode(data).decode("ascii")
    if mime.startswith("audio/"):
        return {"type": "input_audio", "input_audio": {"data": encoded, "format": mime[6:]}}
    url = f"data:{mime};base64,{encoded}"
    if mime.startswith("image/"):
        return {"type": "image_url", "image_url": {"url": url}}
    if mime.startswith("video/"):
        return {"type": "video_url", "video_url": {"url": url}}
    return {"type": "file", "file": {"file_data": url}}  # one of _FILE_TYPES


def _content_item(part: types.Part) -> dict[str, Any] | None:
    if part.text:
        return {"type": "text", "text": part.text}
    blob = part.inline_data
    if blob is not None and blob.data is not None and blob.mime_type:
        return _blob_item(blob.data, blob.mime_type)
    if part.file_data is not None and part.file_data.file_uri:
        mime = (part.file_data.mime_type or "").lower()
        if mime.startswith("image/") or not mime:
            return {"type": "image_url", "image_url": {"url": part.file_data.file_uri}}
        return {"type": "file", "file": {"file_id": part.file_data.file_uri, "format": mime}}
    if part.executable_code is not None:
        return {"type": "text", "text": f"Code:```python\n{part.executable_code.code or ''}\n```"}
    if part.code_execution_result is not None:
        output = part.code_execution_result.output or ""
        return {"type": "text", "text": f"Execution Result:```code_output\n{output}\n```"}
    return None


def _message_content(parts: list[types.Part]) -> str | list[dict[str, Any]] | None:
    """A lone text is a string; anything else a list of content items."""
    items = [item for item in (_content_item(part) for part in parts) if item is not None]
    if not items:
        return None
    if len(items) == 1 and items[0]["type"] == "text":
        text: str = items[0]["text"]
        return text
    return items


def _tool_message(response: types.FunctionResponse) -> dict[str, Any]:
    value = response.response
    return {
        "role": "tool",
        "tool_call_id": response.id or "",
        "content": value if isinstance(value, str) else _json(value),
    }


def _response_media(response: types.FunctionResponse) -> list[types.Part]:
    """The media a tool sent with its response, as parts of a user message after it.

    A tool message carries text only, so images, audio or documents a tool returned (the
    function response's ``parts``) follow the tool messages in a user message, as in
    google-adk's LiteLLM adapter. Inline data of a type LiteLLM cannot send becomes a note
    naming the tool (``unshown_media_note``; google-adk refuses it).
    """
    media: list[types.Part] = []
    for part in response.parts or []:
        blob, file = part.inline_data, part.file_data
        if blob is not None and blob.data is not None and blob.mime_type:
            if not _sendable(blob.mime_type):
                note = unshown_media_note(blob.mime_type, "LiteLLM", tool_name=response.name)
                media.append(types.Part(text=note))
                continue
            media.append(types.Part.from_bytes(data=blob.data, mime_type=blob.mime_type))
        elif file is not None and file.file_uri:
            media.append(types.Part.from_uri(file_uri=file.file_uri, mime_type=file.mime_type))
    return media


def _assistant_message(parts: list[types.Part]) -> dict[str, Any]:
    tool_calls: list[dict[str, Any]] = []
    reasoning: list[str] = []
    other: list[types.Part] = []
    for part in parts:
        if part.function_call is not None:
            call = part.function_call
            if not call.name:
                raise ValueError("A function call part has no name; the model needs one.")
            tool_calls.append(
                {
                    "type": "function",
                    "id": call.id or "",
                    "function": {"name": call.name, "arguments": _json(call.args or {})},
                }
            )
        elif part.thought:
            if part.text:
                reasoning.append(part.text)
        else:
            other.append(part)
    content = _message_content(other)
    if isinstance(content, list):
        texts = [item["text"] for item in content if item["type"] == "text"]
        content = "\n".join(texts) if texts else None
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = tool_calls
    if reasoning:
        message["reasoning_content"] = "\n".join(reasoning)
    return message


def content_to_messages(content: types.Content) -> list[dict[str, Any]]:
    """The chat messages for one turn: tool results first, then the rest of the turn.

    Media a tool returned (the function responses' ``parts``) is in the rest, in order.

    A user turn drops the model's thoughts; a model turn becomes one assistant message with
    its text, ``tool_calls`` and ``reasoning_content``.
    """
    parts = list(content.parts or [])
    if not parts:
        return []
    messages: list[dict[str, Any]] = []
    rest: list[types.Part] = []
    for part in parts:
        if part.function_response is None:
            rest.append(part)
        else:
            messages.append(_tool_message(part.function_response))
            rest.extend(_response_media(part.function_response))
    if not rest:
        return messages
    if content.role in ("model", "assistant"):
        return [*messages, _assistant_message(rest)]
    user_content = _message_content([p for p in rest if not p.thought])
    if user_content is None:
        return messages
    return [*messages, {"role": "user", "content": user_content}]


def _schema_dict(schema: types.Schema | dict[str, Any]) -> dict[str, Any]:
    if isinstance(schema, types.Schema):
        schema = schema.model_dump(by_alias=True, exclude_none=True)
    result: dict[str, Any] = lowercase_schema_types(json.loads(json.dumps(schema)))
    return result


def function_declaration_to_tool(declaration: types.FunctionDeclaration) -> dict[str, Any]:
    """An OpenAI-style ``{"type": "function", "function": {...}}`` tool for a declaration."""
    if not declaration.name:
        raise ValueError("A function declaration has no name; the model needs one.")
    if declaration.parameters_json_schema:
        parameters = _schema_dict(dict(declaration.parameters_json_schema))
    elif declaration.parameters is not None:
        parameters = _schema_dict(declaration.parameters)
        parameters.setdefault("properties", {})
    else:
        parameters = {"type": "object", "properties": {}}
    return {
        "type": "function",
        "function": {
            "name": declaration.name,
            "description": declaration.description or "",
            "parameters": parameters,
        },
    }


def response_format(config: types.GenerateContentConfig) -> dict[str, Any] | None:
    """The ``response_format`` for the config's response schema (or JSON mime type)."""
    schema: Any = config.response_json_schema or config.response_schema
    if schema is None:
        if config.response_mime_type == "application/json":
            return {"type": "json_object"}
        return None
    if isinstance(schema, type) and hasattr(schema, "model_json_schema"):
        json_schema = schema.model_json_schema()
        name = schema.__name__
    elif isinstance(schema, (dict, types.Schema)):
        json_schema = _schema_dict(schema)
        name = "response"
    else:
        from pydantic import TypeAdapter

        json_schema = TypeAdapter(schema).json_schema()
        name = "response"
    return {"type": "json_schema", "json_schema": {"name": name, "schema": json_schema}}


def parse_arguments(raw: Any) -> dict[str, Any]:
    """A tool call's arguments as a dict (``{}`` for none, or for text that is not JSON)."""
    if isinstance(raw, dict):
        return raw
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, json.JSONDecodeError):
        logger.warning("The model sent tool arguments that are not JSON; calling with none.")
        return {}
    return value if isinstance(value, dict) else {}


def usage_to_metadata(usage: Any) -> types.GenerateContentResponseUsageMetadata | None:
    """google-genai's token counts for an OpenAI-style ``usage`` (None without one)."""
    if usage is None:
        return None
    cached = get(get(usage, "prompt_tokens_details"), "cached_tokens")
    reasoning = get(get(usage, "completion_tokens_details"), "reasoning_tokens")
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=get(usage, "prompt_tokens") or 0,
        candidates_token_count=get(usage, "completion_tokens") or 0,
        total_token_count=get(usage, "total_tokens") or 0,
        cached_content_token_count=cached if isinstance(cached, int) and cached else None,
        thoughts_token_count=reasoning if isinstance(reasoning, int) and reasoning else None,
    )


def message_to_response(
    message: Any, *, reason: str | None = None, usage: Any = None, model: str | None = None
) -> LlmResponse:
    """An ``LlmResponse`` for a complete assistant message."""
    parts: list[types.Part] = []
    reasoning = get(message, "reasoning_content")
    if isinstance(reasoning, str) and reasoning:
        parts.append(types.Part(text=reasoning, thought=True))
    text = get(message, "content")
    if isinstance(text, str) and text:
        parts.append(types.Part(text=text))
    for call in get(message, "tool_calls") or []:
        function = get(call, "function")
        parts.append(
            types.Part(
                function_call=types.FunctionCall(
                    id=get(call, "id"),
                    name=get(function, "name"),
                    args=parse_arguments(get(function, "arguments")),
                )
            )
        )
    return LlmResponse(
        content=types.Content(role="model", parts=parts) if parts else None,
        finish_reason=finish_reason(reason),
        usage_metadata=usage_to_metadata(usage),
        model_version=model,
    )
