"""When a complete model response marks the end of the model's turn."""

from __future__ import annotations

from collections.abc import Sequence

from google.genai import types

__all__ = ["turn_complete"]


def turn_complete(parts: Sequence[types.Part] | None) -> bool | None:
    """``turn_complete`` of a complete response made of ``parts``.

    A response that asks for function calls is not the end of the turn: the model answers
    again once it has their results. So only a response without a function call is marked
    (True); one with a call is left unmarked (None), as google-adk's Gemini leaves every
    response of a non-live call.
    """
    if any(part.function_call is not None for part in parts or ()):
        return None
    return True
