"""Thought signatures in a request to Gemini, when another model wrote part of the history.

Gemini signs its thoughts and calls, and checks the signatures sent back to it:

- Another model's signature (Claude's: text, where Gemini's are binary) fails that check, so
  it is taken off the part, and a thought another model signed is left out
  (``without_foreign_signatures``).
- Gemini 3 refuses (400) a request whose current turn — everything after the user's last
  message — holds a model's call without its signature. A call another model made (Claude
  answering for a ``FallbackModel``, or an agent whose model was switched) has none: it gets
  the placeholder Gemini's documentation gives for parts it did not write
  (``with_current_turn_signed``). In parallel calls Gemini signs only the first, so only a
  first call without one is filled in.

The stored events are never changed; only the request is.
"""

from __future__ import annotations

import re

from google.genai import types

from adk_runtime.utils.content_utils import SKIP_THOUGHT_SIGNATURE_VALIDATOR

__all__ = [
    "signs_calls",
    "text_signature",
    "with_current_turn_signed",
    "without_foreign_signatures",
]

_SIGNING_MODELS = re.compile(r"(?:.*/)?gemini-(?:[3-9]|[1-9][0-9])(?:[.-]|$)")


def signs_calls(model: str) -> bool:
    """Whether ``model`` is a Gemini that checks the signatures of its calls (Gemini 3 on)."""
    return _SIGNING_MODELS.match(model) is not None


def with_current_turn_signed(contents: list[types.Content]) -> list[types.Content]:
    """``contents``, with the placeholder on each unsigned model call of the current turn."""
    start = _current_turn_start(contents)
    signed = list(contents)
    for index in range(start, len(contents)):
        content = contents[index]
        if content.role != "model":
            continue
        calls = [i for i, part in enumerate(content.parts or []) if part.function_call]
        if not calls:
            continue
        parts = list(content.parts or [])
        first = parts[calls[0]]
        if first.thought_signature:
            continue
        parts[calls[0]] = first.model_copy(
            update={"thought_signature": SKIP_THOUGHT_SIGNATURE_VALIDATOR}
        )
        signed[index] = content.model_copy(update={"parts": parts})
    return signed


def _current_turn_start(contents: list[types.Content]) -> int:
    """The index after the user's last message (a user content that is not only results)."""
    for index in range(len(contents) - 1, -1, -1):
        content = contents[index]
        if content.role == "user" and any(
            part.function_response is None for part in content.parts or []
        ):
            return index + 1
    return 0


def without_foreign_signatures(contents: list[types.Content]) -> list[types.Content]:
    """``contents`` without the signatures another model wrote, nor the thoughts it signed."""
    return [_without_text_signatures(content) for content in contents]


def _without_text_signatures(content: types.Content) -> types.Content:
    parts = content.parts or []
    if not any(text_signature(part.thought_signature) for part in parts):
        return content
    kept: list[types.Part] = []
    for part in parts:
        if not text_signature(part.thought_signature):
            kept.append(part)
        elif not part.thought:  # a call or text: keep it, unsigned
            kept.append(part.model_copy(update={"thought_signature": None}))
    return content.model_copy(update={"parts": kept})


def text_signature(signature: bytes | None) -> bool:
    """Whether ``signature`` is text, as Claude writes them (Gemini's are binary).

    Gemini's placeholder for parts it did not write is not taken for one.
    """
    if not signature:
        return False
    return signature.isascii() and signature != SKIP_THOUGHT_SIGNATURE_VALIDATOR
