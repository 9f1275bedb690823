"""Translation between google-genai contents and Anthropic's Messages API payloads.

Everything here works on plain dicts (the JSON the Messages API takes and returns) and on
the ``anthropic`` package's response models only through attribute access, so the module
imports without the ``anthropic`` extra.
"""

from __future__ import annotations

import base64
import copy
import json
import logging
import re
from typing import Any

from google.genai import types

from adk_runtime.models._thought_signatures import text_signature
from adk_runtime.models._unshown_media import bare_mime_type, unshown_media_note
from adk_runtime.models.llm_response import LlmResponse

__all__ = [
    "ToolIdMapper",
    "content_block_to_part",
    "content_to_message_param",
    "function_declaration_to_tool_param",
    "lowercase_schema_types",
    "message_to_generate_content_response",
    "part_to_message_block",
    "to_claude_role",
    "to_google_genai_finish_reason",
    "usage_to_metadata",
]

logger = logging.getLogger(__name__)

IMAGE_MEDIA_TYPES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_VALID_TOOL_ID = re.compile(r"[a-zA-Z0-9_-]+")
_PAYLOAD_FIELDS = (
    "function_call",
    "function_response",
    "inline_data",
    "file_data",
    "executable_code",
    "code_execution_result",
    "tool_call",
    "tool_response",
)

_FINISH_REASONS: dict[str, types.FinishReason] = {
    "end_turn": types.FinishReason.STOP,
    "stop_sequence": types.FinishReason.STOP,
    "tool_use": types.FinishReason.STOP,
    "pause_turn": types.FinishReason.STOP,
    "max_tokens": types.FinishReason.MAX_TOKENS,
    "refusal": types.FinishReason.SAFETY,
}


def to_claude_role(role: str | None) -> str:
    """``"assistant"`` for the model's turns, ``"user"`` for everything else."""
    return "assistant" if role in ("model", "assistant") else "user"


def to_google_genai_finish_reason(
    anthropic_stop_reason: str | None,
) -> types.FinishReason | None:
    """Map an Anthropic ``stop_reason`` to a google-genai finish reason."""
    stop_reason = anthropic_stop_reason
    if stop_reason is None:
        return None
    return _FINISH_REASONS.get(stop_reason, types.FinishReason.FINISH_REASON_UNSPECIFIED)


class ToolIdMapper:
    """Gives every tool call an id Anthropic accepts, and its response the same id.

    Anthropic takes ``[a-zA-Z0-9_-]+`` ids only. Valid ids pass unchanged; another id (or a
    missing one) gets ``toolu_fallback_N``. A response without an id is paired with the
    oldest unanswered call of the same name (or of any name). Use one mapper per request.
    """

    def __init__(self) -> None:
        """Start with no ids assigned."""
        self._assigned: dict[str, str] = {}
        self._unanswered: list[tuple[str | None, str]] = []
        self._counter = 0

    def _fresh(self) -> str:
        new_id = f"toolu_fallback_{self._counter}"
        self._counter += 1
        return new_id

    def for_call(self, call_id: str | None, name: str | None) -> str:
        """The id to send for a ``tool_use`` block."""
        if call_id and _VALID_TOOL_ID.fullmatch(call_id):
            return call_id
        if call_id:
            if call_id not in self._assigned:
                self._assigned[call_id] = self._fresh()
            return self._assigned[call_id]
        new_id = self._fresh()
        self._unanswered.append((name, new_id))
        return new_id

    def for_response(self, call_id: str | None, name: str | None) -> str:
        """The id to send for a ``tool_result`` block."""
        if call_id:
            return self.for_call(call_id, name)
        for index, (call_name, assigned) in enumerate(self._unanswered):
            if call_name == name:
                del self._unanswered[index]
                return assigned
        if self._unanswered:
            return self._unanswered.pop(0)[1]
        return self._fresh()


def _media_block(blob: types.Blob | types.FunctionResponseBlob) -> dict[str, Any] | None:
    """An image or PDF block for ``blob``, or None for a type Claude does not read."""
    if blob.data is None or not blob.mime_type:
        return None
    media_type = bare_mime_type(blob.mime_type)
    data = base64.b64encode(blob.data).decode("ascii")
    source = {"type": "base64", "media_type": media_type, "data": data}
    if media_type in IMAGE_MEDIA_TYPES:
        return {"type": "image", "source": source}
    if media_type == "application/pdf":
        return {"type": "document", "source": source}
    return None


def _media_or_note(
    blob: types.Blob | types.FunctionResponseBlob, tool_name: str | None = None
) -> dict[str, Any] | None:
    """``blob``'s image or PDF block; a note in its place for another type (None if empty).

    The media is stored with the conversation, so refusing it would fail every later turn.
    """
    if blob.data is None or not blob.mime_type:
        return None
    block = _media_block(blob)
    if block is not None:
        return block
    return {
        "type": "text",
        "text": unshown_media_note(blob.mime_type, "Claude", tool_name=tool_name),
    }


def _tool_result_text(response: dict[str, Any]) -> str:
    """The text of a tool result: MCP-style content, the wrapped result, or the JSON."""
    content = response.get("content")
    if isinstance(content, list) and content:
        lines = [
            item["text"]
            if isinstance(item, dict) and item.get("type") == "text" and "text" in item
            else str(item)
            for item in content
        ]
        return "\n".join(lines)
    if isinstance(content, str) and content:
        return content
    if response.keys() == {"result"} and response["result"] is not None:
        result = response["result"]
        return json.dumps(result) if isinstance(result, (dict, list)) else str(result)
    return json.dumps(response) if response else ""


def _tool_result_block(response: types.FunctionResponse, ids: ToolIdMapper) -> dict[str, Any]:
    text = _tool_result_text(response.response or {})
    media: list[dict[str, Any]] = []
    for part in response.parts or []:
        block = (
            None if part.inline_data is None else _media_or_note(part.inline_data, response.name)
        )
        if block is not None:
            media.append(block)
    content: str | list[dict[str, Any]] = text
    if media:
        content = ([{"type": "text", "text": text}] if text else []) + media
    return {
        "type": "tool_result",
        "tool_use_id": ids.for_response(response.id, response.name),
        "content": content,
        "is_error": False,
    }


def _is_media(part: types.Part, prefix: str) -> bool:
    blob = part.inline_data
    return bool(blob and blob.mime_type and bare_mime_type(blob.mime_type).startswith(prefix))


def _claude_signature(part: types.Part) -> str | None:
    """The part's thought signature if Claude could have written it, or None."""
    signature = part.thought_signature
    return signature.decode("ascii") if signature and text_signature(signature) else None


def _block(part: types.Part, ids: ToolIdMapper) -> dict[str, Any] | None:  # noqa: C901
    if part.thought:
        signature = _claude_signature(part)
        if signature is None:
            return None  # another model's thought: Claude takes only its own, signed
        if part.text:
            return {"type": "thinking", "thinking": part.text, "signature": signature}
        return {"type": "redacted_thinking", "data": signature}
    if part.text:
        return {"type": "text", "text": part.text}
    if part.function_call is not None:
        call = part.function_call
        if not call.name:
            raise ValueError("A function call part has no name; Claude needs one.")
        return {
            "type": "tool_use",
            "id": ids.for_call(call.id, call.name),
            "name": call.name,
            "input": dict(call.args or {}),
        }
    if part.function_response is not None:
        return _tool_result_block(part.function_response, ids)
    media = None if part.inline_data is None else _media_or_note(part.inline_data)
    if media is not None:
        return media
    if part.file_data is not None and part.file_data.file_uri:
        mime = part.file_data.mime_type or "file"
        return {"type": "text", "text": unshown_media_note(mime, "Claude")}
    if part.executable_code is not None:
        return {"type": "text", "text": f"Code:```python\n{part.executable_code.code or ''}\n```"}
    if part.code_execution_result is not None:
        output = part.code_execution_result.output or ""
        return {"type": "text", "text": f"Execution Result:```code_output\n{output}\n```"}
    return None  # nothing Claude can take: another model's server-side tool trace, metadata


def part_to_message_block(part: types.Part, ids: ToolIdMapper | None = None) -> dict[str, Any]:
    """Translate one part into an Anthropic content block (a dict).

    Inline data Claude cannot read (a type other than its images and PDF) and file URIs
    become a text note saying an attachment is not shown.

    Raises:
        NotImplementedError: The part carries nothing Claude accepts.
    """
    block = _block(part, ids or ToolIdMapper())
    if block is None:
        raise NotImplementedError(
            "This part has nothing Claude can take (text, function call or response, image, "
            "PDF, code): " + ", ".join(_fields(part))
        )
    return block


def _fields(part: types.Part) -> list[str]:
    return sorted(part.model_dump(exclude_none=True))


def _carries_nothing(part: types.Part) -> bool:
    return not any(getattr(part, name, None) is not None for name in _PAYLOAD_FIELDS)


def content_to_message_param(
    content: types.Content, ids: ToolIdMapper | None = None
) -> dict[str, Any]:
    """Translate one turn into an Anthropic message ``{"role", "content"}``.

    Media in the model's own turns, bare thought signatures and parts with nothing Claude can
    take (another model's server-side tool calls, metadata alone) are dropped with a warning;
    empty text is skipped, and a user turn left empty by that becomes ``"."`` so the
    conversation does not end on the assistant's turn.
    """
    ids = ids or ToolIdMapper()
    role = to_claude_role(content.role)
    blocks: list[dict[str, Any]] = []
    skipped = False
    for part in content.parts or []:
        if role == "assistant" and (
            _is_media(part, "image/") or _is_media(part, "application/pdf")
        ):
            logger.warning("Claude takes images and documents in user turns only: dropped one.")
            continue
        if part.thought_signature and not part.thought and not part.text and _carries_nothing(part):
            logger.warning("Dropped a thought signature that came from another model.")
            continue
        if part.text == "" and not part.thought_signature and _carries_nothing(part):
            skipped = True
            continue
        block = _block(part, ids)
        if block is None:
            # Stored history outlives the model that wrote it (a model switch, a fallback
            # model, another agent's turn): refusing the part would fail every later turn.
            logger.warning("Dropped a part Claude cannot take (%s).", ", ".join(_fields(part)))
            skipped = True
            continue
        blocks.append(block)
    if not blocks and skipped and role == "user":
        blocks.append({"type": "text", "text": "."})
    return {"role": role, "content": blocks}


def lowercase_schema_types(schema: Any) -> Any:
    """Lower-case every ``"type"`` of a JSON schema in place (genai writes ``"OBJECT"``)."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "type" and isinstance(value, str):
                schema[key] = value.lower()
            elif key == "type" and isinstance(value, list):
                schema[key] = [v.lower() if isinstance(v, str) else v for v in value]
            else:
                lowercase_schema_types(value)
    elif isinstance(schema, list):
        for item in schema:
            lowercase_schema_types(item)
    return schema


def function_declaration_to_tool_param(
    function_declaration: types.FunctionDeclaration,
) -> dict[str, Any]:
    """An Anthropic tool (``name``, ``description``, ``input_schema``) for a declaration."""
    declaration = function_declaration
    if not declaration.name:
        raise ValueError("A function declaration has no name; Claude needs one.")
    if declaration.parameters_json_schema:
        input_schema = lowercase_schema_types(copy.deepcopy(declaration.parameters_json_schema))
    else:
        parameters = declaration.parameters
        properties = {
            key: value.model_dump(by_alias=True, exclude_none=True)
            for key, value in ((parameters.properties or {}) if parameters else {}).items()
        }
        input_schema = {"type": "object", "properties": properties}
        if parameters is not None and parameters.required:
            input_schema["required"] = list(parameters.required)
        lowercase_schema_types(input_schema)
    return {
        "name": declaration.name,
        "description": declaration.description or "",
        "input_schema": input_schema,
    }


def content_block_to_part(content_block: Any) -> types.Part:
    """Translate a block of Claude's reply (an ``anthropic`` model or a dict) into a part."""
    block = content_block
    kind = _get(block, "type")
    if kind == "thinking":
        signature = _get(block, "signature")
        return types.Part(
            text=_get(block, "thinking"),
            thought=True,
            thought_signature=signature.encode("utf-8") if signature else None,
        )
    if kind == "redacted_thinking":
        return types.Part(thought=True, thought_signature=str(_get(block, "data")).encode("utf-8"))
    if kind == "text":
        return types.Part(text=_get(block, "text"))
    if kind == "tool_use":
        arguments = _get(block, "input")
        return types.Part(
            function_call=types.FunctionCall(
                id=_get(block, "id"),
                name=_get(block, "name"),
                args=dict(arguments) if isinstance(arguments, dict) else {},
            )
        )
    raise NotImplementedError(f"Claude answered with a {kind!r} block, which is not supported.")


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _int(usage: Any, name: str) -> int | None:
    value = _get(usage, name)
    return value if isinstance(value, int) else None


def usage_to_metadata(usage: Any) -> types.GenerateContentResponseUsageMetadata:
    """Token counts of an Anthropic ``usage`` in google-genai's shape.

    The prompt count includes the tokens read from and written to the prompt cache (which
    Anthropic reports apart); thinking tokens move from the output count to
    ``thoughts_token_count``.
    """
    cache_read = _int(usage, "cache_read_input_tokens")
    cache_write = _int(usage, "cache_creation_input_tokens")
    prompt = (_int(usage, "input_tokens") or 0) + (cache_read or 0) + (cache_write or 0)
    output = _int(usage, "output_tokens") or 0
    thinking = _int(_get(usage, "output_tokens_details"), "thinking_tokens")
    if thinking is not None:
        thinking = min(thinking, output)
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=prompt,
        candidates_token_count=output - (thinking or 0),
        total_token_count=prompt + output,
        cached_content_token_count=cache_read,
        thoughts_token_count=thinking,
    )


def message_to_generate_content_response(message: Any) -> LlmResponse:
    """An ``LlmResponse`` for a complete Anthropic ``Message``."""
    parts = [content_block_to_part(block) for block in _get(message, "content") or []]
    return LlmResponse(
        content=types.Content(role="model", parts=parts),
        usage_metadata=usage_to_metadata(_get(message, "usage")),
        finish_reason=to_google_genai_finish_reason(_get(message, "stop_reason")),
        model_version=_get(message, "model"),
    )
