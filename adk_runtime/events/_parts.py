"""The function calls and responses of a content, shared by ``Event`` and ``LlmResponse``."""

from __future__ import annotations

from google.genai import types

__all__ = ["function_calls", "function_responses"]


def function_calls(content: types.Content | None) -> list[types.FunctionCall]:
    """The function calls among ``content``'s parts, in order (none without content)."""
    parts = content.parts if content is not None else None
    return [part.function_call for part in parts or [] if part.function_call]


def function_responses(content: types.Content | None) -> list[types.FunctionResponse]:
    """The function responses among ``content``'s parts, in order (none without content)."""
    parts = content.parts if content is not None else None
    return [part.function_response for part in parts or [] if part.function_response]
