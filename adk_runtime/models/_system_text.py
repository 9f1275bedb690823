"""The system instruction of a request as plain text, for providers that take a string."""

from __future__ import annotations

from typing import Any

from google.genai import types

__all__ = ["system_text"]


def system_text(config: types.GenerateContentConfig, separator: str = "\n\n") -> str | None:
    """The texts of ``config.system_instruction`` joined by ``separator`` (None: no text).

    google-genai takes a string, a ``Part``, a ``Content`` or a list of strings and parts;
    parts without text (files, say) are left out.
    """
    instruction: Any = config.system_instruction
    if instruction is None or isinstance(instruction, str):
        return instruction or None
    if isinstance(instruction, types.Part):
        return instruction.text or None
    items: list[Any] = []
    if isinstance(instruction, types.Content):
        items = list(instruction.parts or [])
    elif isinstance(instruction, list):
        items = list(instruction)  # pyright: ignore[reportUnknownArgumentType]
    texts: list[str] = []
    for item in items:
        text = item if isinstance(item, str) else getattr(item, "text", None)
        if isinstance(text, str) and text:
            texts.append(text)
    return separator.join(texts) or None
