"""A2A parts to genai parts and back.

Text, files (bytes or URL) and structured data map one to one. Function calls and
responses, code and tool calls travel as data parts tagged ``adk_type`` in their metadata;
any other data part becomes a ``text/plain`` blob wrapped in ``<a2a_datapart_json>`` tags, so
that converting it back gives the data part again.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Callable
from typing import Any

from google.genai import types as genai_types
from pydantic import BaseModel

from adk_runtime.a2a import _compat
from adk_runtime.a2a._compat import Part as A2APart
from adk_runtime.a2a.converters.utils import _get_adk_metadata_key
from adk_runtime.utils.variant_utils import GoogleLLMVariant, get_google_llm_variant

__all__ = [
    "A2APartToGenAIPartConverter",
    "GenAIPartToA2APartConverter",
    "convert_a2a_part_to_genai_part",
    "convert_genai_part_to_a2a_part",
]

logger = logging.getLogger(__name__)

A2A_DATA_PART_METADATA_TYPE_KEY = "type"
A2A_DATA_PART_METADATA_IS_LONG_RUNNING_KEY = "is_long_running"
A2A_DATA_PART_METADATA_TYPE_FUNCTION_CALL = "function_call"
A2A_DATA_PART_METADATA_TYPE_FUNCTION_RESPONSE = "function_response"
A2A_DATA_PART_METADATA_TYPE_CODE_EXECUTION_RESULT = "code_execution_result"
A2A_DATA_PART_METADATA_TYPE_EXECUTABLE_CODE = "executable_code"
A2A_DATA_PART_METADATA_TYPE_TOOL_CALL = "tool_call"
A2A_DATA_PART_METADATA_TYPE_TOOL_RESPONSE = "tool_response"
A2A_DATA_PART_TEXT_MIME_TYPE = "text/plain"
A2A_DATA_PART_START_TAG = b"<a2a_datapart_json>"
A2A_DATA_PART_END_TAG = b"</a2a_datapart_json>"

A2APartToGenAIPartConverter = Callable[[A2APart], genai_types.Part | list[genai_types.Part] | None]
GenAIPartToA2APartConverter = Callable[[genai_types.Part], A2APart | list[A2APart] | None]

# genai part field -> the data-part type tag it travels under
_TAGGED_FIELDS: dict[str, str] = {
    "function_call": A2A_DATA_PART_METADATA_TYPE_FUNCTION_CALL,
    "function_response": A2A_DATA_PART_METADATA_TYPE_FUNCTION_RESPONSE,
    "code_execution_result": A2A_DATA_PART_METADATA_TYPE_CODE_EXECUTION_RESULT,
    "executable_code": A2A_DATA_PART_METADATA_TYPE_EXECUTABLE_CODE,
    "tool_call": A2A_DATA_PART_METADATA_TYPE_TOOL_CALL,
    "tool_response": A2A_DATA_PART_METADATA_TYPE_TOOL_RESPONSE,
}
_FIELD_BY_TAG = {tag: field for field, tag in _TAGGED_FIELDS.items()}
_FIELD_TYPES: dict[str, type[BaseModel]] = {
    "function_call": genai_types.FunctionCall,
    "function_response": genai_types.FunctionResponse,
    "code_execution_result": genai_types.CodeExecutionResult,
    "executable_code": genai_types.ExecutableCode,
    "tool_call": genai_types.ToolCall,
    "tool_response": genai_types.ToolResponse,
}
_MEDIA_FIELDS = ("video_metadata", "media_resolution")


def _genai_metadata(meta: dict[str, Any]) -> dict[str, Any] | None:
    # Vertex AI refuses part_metadata; only the Gemini API keeps it.
    if get_google_llm_variant() == GoogleLLMVariant.VERTEX_AI:
        return None
    return meta or None


def _media_metadata(part: genai_types.Part) -> dict[str, Any]:
    meta: dict[str, Any] = {}
    for name in _MEDIA_FIELDS:
        value = getattr(part, name, None)
        if isinstance(value, BaseModel):
            value = value.model_dump(mode="json", by_alias=True, exclude_none=True)
        if value is not None:
            meta[_get_adk_metadata_key(name)] = value
    return meta


def _split_media_fields(meta: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(genai media fields found in ``meta``, the metadata without them)."""
    fields: dict[str, Any] = {}
    rest = dict(meta)
    for name in _MEDIA_FIELDS:
        key = _get_adk_metadata_key(name)
        if name in genai_types.Part.model_fields and rest.get(key) is not None:
            fields[name] = rest.pop(key)
    return fields, rest


def _thought_signature(meta: dict[str, Any]) -> bytes | None:
    value = meta.get(_get_adk_metadata_key("thought_signature"))
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        try:
            return base64.b64decode(value)
        except (binascii.Error, ValueError):
            logger.warning("Ignoring a thought signature that is not base64.")
    return None


def _file_to_genai(a2a_part: A2APart, meta: dict[str, Any]) -> genai_types.Part | None:
    media, rest = _split_media_fields(meta)
    mime_type = _compat.file_part_mime_type(a2a_part)
    name = _compat.file_part_name(a2a_part)
    uri = _compat.file_part_uri(a2a_part)
    if uri is not None:
        file_data = genai_types.FileData(file_uri=uri, mime_type=mime_type, display_name=name)
        return genai_types.Part(file_data=file_data, part_metadata=_genai_metadata(rest), **media)
    data = _compat.file_part_bytes(a2a_part)
    if data is None:
        return None
    blob = genai_types.Blob(data=data, mime_type=mime_type, display_name=name)
    return genai_types.Part(inline_data=blob, part_metadata=_genai_metadata(rest), **media)


def _data_to_genai(a2a_part: A2APart, meta: dict[str, Any]) -> genai_types.Part:
    field = _FIELD_BY_TAG.get(meta.get(_get_adk_metadata_key(A2A_DATA_PART_METADATA_TYPE_KEY), ""))
    if field is not None:
        value = _FIELD_TYPES[field].model_validate(_compat.data_part_dict(a2a_part), by_alias=True)
        part = genai_types.Part(
            thought_signature=_thought_signature(meta), part_metadata=_genai_metadata(meta)
        )
        setattr(part, field, value)
        return part
    wrapped = (
        A2A_DATA_PART_START_TAG + _compat.data_part_blob_bytes(a2a_part) + A2A_DATA_PART_END_TAG
    )
    blob = genai_types.Blob(data=wrapped, mime_type=A2A_DATA_PART_TEXT_MIME_TYPE)
    return genai_types.Part(inline_data=blob, part_metadata=_genai_metadata(meta))


def convert_a2a_part_to_genai_part(a2a_part: A2APart) -> genai_types.Part | None:
    """The genai part for an A2A part, or None when it cannot be converted (logged)."""
    meta = _compat.part_metadata(a2a_part)
    if _compat.is_text_part(a2a_part):
        return genai_types.Part(
            text=_compat.part_text(a2a_part),
            thought=meta.get(_get_adk_metadata_key("thought")),
            part_metadata=_genai_metadata(meta),
        )
    if _compat.is_file_part(a2a_part):
        return _file_to_genai(a2a_part, meta)
    if _compat.is_data_part(a2a_part):
        return _data_to_genai(a2a_part, meta)
    logger.warning("Skipping an A2A part with no content.")
    return None


def _with_metadata(a2a_part: A2APart, meta: dict[str, Any]) -> A2APart:
    if meta:
        _compat.set_part_metadata(a2a_part, meta)
    return a2a_part


def _inline_to_a2a(part: genai_types.Part) -> A2APart | None:
    blob = part.inline_data
    assert blob is not None
    data = blob.data
    if data is None:
        return None
    extra = dict(part.part_metadata) if part.part_metadata else None
    if (
        blob.mime_type == A2A_DATA_PART_TEXT_MIME_TYPE
        and data.startswith(A2A_DATA_PART_START_TAG)
        and data.endswith(A2A_DATA_PART_END_TAG)
    ):
        raw = data[len(A2A_DATA_PART_START_TAG) : -len(A2A_DATA_PART_END_TAG)]
        return _compat.make_data_part_from_blob(raw, extra_metadata=extra)
    a2a_part = _compat.make_file_part_with_bytes(
        data=data, mime_type=blob.mime_type or "", name=blob.display_name
    )
    return _with_metadata(a2a_part, {**_media_metadata(part), **(extra or {})})


def convert_genai_part_to_a2a_part(part: genai_types.Part) -> A2APart | None:
    """The A2A part for a genai part, or None when it has nothing A2A can carry (logged)."""
    extra = dict(part.part_metadata or {})
    if part.text is not None:
        thought: dict[str, Any] = {}
        if part.thought is not None:
            thought[_get_adk_metadata_key("thought")] = part.thought
        return _with_metadata(_compat.make_text_part(part.text), {**thought, **extra})
    if part.file_data:
        a2a_part = _compat.make_file_part_with_uri(
            uri=part.file_data.file_uri or "",
            mime_type=part.file_data.mime_type or "",
            name=part.file_data.display_name,
        )
        return _with_metadata(a2a_part, {**_media_metadata(part), **extra})
    if part.inline_data:
        return _inline_to_a2a(part)
    for field, tag in _TAGGED_FIELDS.items():
        value = getattr(part, field, None)
        if value is None:
            continue
        meta: dict[str, Any] = {_get_adk_metadata_key(A2A_DATA_PART_METADATA_TYPE_KEY): tag}
        if part.thought_signature is not None:
            signature = base64.b64encode(part.thought_signature).decode("ascii")
            meta[_get_adk_metadata_key("thought_signature")] = signature
        data = value.model_dump(mode="json", by_alias=True, exclude_none=True)
        return _compat.make_data_part(data=data, metadata={**meta, **extra})
    logger.warning("Skipping a genai part A2A cannot carry.")
    return None
