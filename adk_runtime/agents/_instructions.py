"""An agent's instruction fields: the provider's verbatim text and the static parts."""

from __future__ import annotations

from typing import Any

from google.genai import types

from adk_runtime.core._instructions import InstructionProvider, render_instruction
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.errors import InputValidationError

__all__ = ["canonical_instruction", "static_parts"]


async def canonical_instruction(
    instruction: str | InstructionProvider, context: ReadonlyContext
) -> tuple[str, bool]:
    """google-adk's ``(text, bypass_state_injection)`` for an instruction field.

    A string comes back as it is (its placeholders still to fill) with False; a provider's
    result with True (it is used verbatim).
    """
    if isinstance(instruction, str):
        return instruction, False
    return await render_instruction(instruction, context), True


def static_parts(static: Any) -> list[types.Part]:
    """The parts of a ``static_instruction``.

    It is a string, a ``Part``, a ``Content``, an uploaded ``File``, or a list of them.

    Raises:
        InputValidationError: Something else (for instance an image object: pass a ``Part``),
            or a ``File`` without its uri and MIME type.
    """
    if isinstance(static, str):
        return [types.Part(text=static)]
    if isinstance(static, types.Part):
        return [static]
    if isinstance(static, types.File):  # a file of the Files API, as google-genai reads one
        if not static.uri or not static.mime_type:
            raise InputValidationError(
                "A File in static_instruction needs its uri and mime_type (an uploaded file)."
            )
        return [types.Part.from_uri(file_uri=static.uri, mime_type=static.mime_type)]
    if isinstance(static, types.Content):
        return list(static.parts or [])
    if isinstance(static, (list, tuple)):
        return [part for item in static for part in static_parts(item)]
    raise InputValidationError(
        f"static_instruction must be a str, a Part, a Content, a File or a list of them, not "
        f"{type(static).__name__}."
    )
