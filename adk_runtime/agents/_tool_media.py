"""Media in a tool's result: handed to the model as parts of the function response.

A function response is JSON, so an image a tool returns would reach the model as base64
text. A tool may instead return a ``types.Part`` holding the bytes (``inline_data``) or a
file's uri (``file_data``), on its own, as an entry of a returned dict, list or tuple, or in
a list or dict one level further down. Such parts are taken out of the result and sent as
the function response's ``parts`` (images, audio, documents the model reads as such), as
google-adk 2.13 does. A tool with media in a shape of its own splits it out itself
(``BaseTool.response_media``: a computer action's base64 screenshot).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from google.genai import types

if TYPE_CHECKING:
    from adk_runtime.core.base_tool import BaseTool

__all__ = ["media_part", "split_media"]

_NESTING = 1
"""How many containers below the result's own entries are searched for media."""


def split_media(tool: BaseTool, result: Any) -> tuple[Any, list[types.FunctionResponsePart]]:
    """``result`` without its media, and the media as function-response parts.

    Args:
        tool: The tool that returned ``result``.
        result: What the tool (and its after callbacks) returned.

    Returns:
        The result unchanged and no parts when it holds no media; else what is left of it
        (``{}`` when nothing is) and the parts, in the order found.
    """
    parts: list[types.FunctionResponsePart] = []
    remaining = _without_media(result, parts, depth=0)
    if parts:
        return ({} if remaining is _TAKEN or remaining in ({}, []) else remaining), parts
    if isinstance(result, dict):
        own = tool.response_media(result)  # pyright: ignore[reportUnknownArgumentType]
        if own is not None:
            return own
    return result, []


class _Taken:
    """Marks an entry that was media (or held nothing but media) and is left out."""


_TAKEN: Any = _Taken()


def media_part(value: object) -> types.FunctionResponsePart | None:
    """``value`` as a function-response part if it is a ``types.Part`` holding media."""
    if not isinstance(value, types.Part):
        return None
    blob = value.inline_data
    if blob is not None and blob.data is not None and blob.mime_type:
        return types.FunctionResponsePart.from_bytes(data=blob.data, mime_type=blob.mime_type)
    file = value.file_data
    if file is not None and file.file_uri and file.mime_type:
        return types.FunctionResponsePart.from_uri(file_uri=file.file_uri, mime_type=file.mime_type)
    return None


def _without_media(value: Any, parts: list[types.FunctionResponsePart], depth: int) -> Any:
    """``value`` with its media appended to ``parts`` and left out (``_TAKEN`` if all was)."""
    part = media_part(value)
    if part is not None:
        parts.append(part)
        return _TAKEN
    if depth > _NESTING or not isinstance(value, dict | list | tuple):
        return value
    found = len(parts)
    if isinstance(value, dict):
        entries: dict[Any, Any] = {}
        for key, entry in value.items():  # pyright: ignore[reportUnknownVariableType]
            kept = _without_media(entry, parts, depth + 1)
            if kept is not _TAKEN:
                entries[key] = kept
        rest: Any = entries
    else:
        items: Sequence[Any] = value  # pyright: ignore[reportUnknownVariableType]
        kept_items = (_without_media(item, parts, depth + 1) for item in items)
        rest = [kept for kept in kept_items if kept is not _TAKEN]
    if len(parts) == found:
        return value  # no media here: the value itself, untouched
    return rest if rest or depth == 0 else _TAKEN
