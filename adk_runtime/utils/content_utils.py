"""Helpers for ``types.Content`` values (google-adk's ``utils.content_utils``)."""

from __future__ import annotations

import json
from typing import Any

from google.genai import types
from pydantic import BaseModel

__all__ = [
    "SKIP_THOUGHT_SIGNATURE_VALIDATOR",
    "extract_text_from_content",
    "filter_audio_parts",
    "is_audio_part",
    "to_user_content",
]

SKIP_THOUGHT_SIGNATURE_VALIDATOR: bytes = b"skip_thought_signature_validator"
"""The ``Part.thought_signature`` Gemini accepts on a part the model did not write.

Gemini checks the signatures of the model turns sent back to it; a model turn built by
hand (a tool call replayed, a synthetic answer) carries this value instead.
"""


def is_audio_part(part: types.Part) -> bool:
    """Whether ``part`` is audio, inline or by reference (an ``audio/*`` MIME type)."""
    for blob in (part.inline_data, part.file_data):
        if blob is not None and (blob.mime_type or "").startswith("audio/"):
            return True
    return False


def filter_audio_parts(content: types.Content) -> types.Content | None:
    """``content`` without its audio parts; None when nothing else is left."""
    parts = [part for part in content.parts or [] if not is_audio_part(part)]
    return types.Content(role=content.role, parts=parts) if parts else None


def extract_text_from_content(content: types.Content | None, splitter: str = "") -> str:
    """The text of ``content``'s non-thought parts, joined with ``splitter`` ('' if none)."""
    if content is None:
        return ""
    return splitter.join(p.text for p in content.parts or [] if p.text and not p.thought)


def to_user_content(value: Any) -> types.Content:
    """``value`` as a user message.

    A ``Content`` keeps its parts (the same list) in the ``user`` role; a string is its
    text; a pydantic model its JSON; a dict or list its JSON with non-ASCII characters kept
    as they are; anything else ``str(value)``.
    """
    if isinstance(value, types.Content):
        return types.Content(role="user", parts=value.parts)
    if isinstance(value, str):
        text = value
    elif isinstance(value, BaseModel):
        text = value.model_dump_json()
    elif isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = str(value)
    return types.Content(role="user", parts=[types.Part(text=text)])
