"""Function-call ids minted by the runtime, which models did not issue."""

from __future__ import annotations

from typing import Any

from google.genai import types

__all__ = ["CLIENT_CALL_ID_PREFIX", "without_client_ids"]

CLIENT_CALL_ID_PREFIX = "adk-"


def without_client_ids(contents: list[types.Content]) -> list[types.Content]:
    """Return ``contents`` with the runtime's function-call ids removed (shallow copies)."""
    return [_content_without_client_ids(content) for content in contents]


def _content_without_client_ids(content: types.Content) -> types.Content:
    parts = content.parts or []
    if not any(_client_id(part) for part in parts):
        return content
    new_parts: list[types.Part] = []
    for part in parts:
        if part.function_call is not None and _client_id(part):
            call = part.function_call.model_copy(update={"id": None})
            part = part.model_copy(update={"function_call": call})
        elif part.function_response is not None and _client_id(part):
            response = part.function_response.model_copy(update={"id": None})
            part = part.model_copy(update={"function_response": response})
        new_parts.append(part)
    return content.model_copy(update={"parts": new_parts})


def _client_id(part: types.Part) -> bool:
    item: Any = part.function_call or part.function_response
    return item is not None and bool(item.id) and item.id.startswith(CLIENT_CALL_ID_PREFIX)
