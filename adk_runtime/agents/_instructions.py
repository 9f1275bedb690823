"""Render an agent's instruction: ``{key}`` state templating or a callable provider."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeAlias

from google.genai import types

from adk_runtime import _callbacks
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.errors import (
    InputValidationError,
    MissingStateKeyError,
    ServiceNotConfiguredError,
)
from adk_runtime.sessions.state import State

__all__ = [
    "InstructionProvider",
    "MissingStateKeyError",
    "canonical_instruction",
    "render_instruction",
    "static_parts",
]

InstructionProvider: TypeAlias = Callable[[ReadonlyContext], str | Awaitable[str]]

# Not right after "$", "{" or a backslash: "${VAR}" (shell, JavaScript) stays as written.
_PLACEHOLDER = re.compile(r"(?<![${\\]){+[^{}]*}+")
_PREFIXES = (State.APP_PREFIX, State.USER_PREFIX, State.TEMP_PREFIX)
_ARTIFACT = "artifact."


async def render_instruction(
    instruction: str | InstructionProvider, context: ReadonlyContext
) -> str:
    """Return the instruction text for this step.

    A string has its placeholders filled from the state: ``{key}``, ``{app:key}``,
    ``{user:key}``, ``{temp:key}``, ``{key?}`` (empty when unset) and ``{artifact.name}`` (the
    text of an artifact). Braces around anything that is not a valid name are left as they
    are. A callable gets the read-only context and its result is used verbatim.

    Raises:
        MissingStateKeyError: A required key is not in the state.
    """
    if callable(instruction):
        if _callbacks.is_async_callable(instruction):
            return await instruction(context)  # type: ignore[no-any-return, misc]
        result = await asyncio.to_thread(instruction, context)
        if not isinstance(result, str):
            return await result
        return result
    if "{" not in instruction:
        return instruction
    pieces: list[str] = []
    end = 0
    for match in _PLACEHOLDER.finditer(instruction):
        pieces.append(instruction[end : match.start()])
        pieces.append(await _replace(match.group(), context))
        end = match.end()
    pieces.append(instruction[end:])
    return "".join(pieces)


async def _replace(placeholder: str, context: ReadonlyContext) -> str:
    name = placeholder.lstrip("{").rstrip("}").strip()
    optional = name.endswith("?")
    name = name.removesuffix("?")
    if name.startswith(_ARTIFACT):
        return await _artifact_text(name[len(_ARTIFACT) :], optional, context)
    if not _is_state_name(name):
        return placeholder
    state = context.state
    if name in state:
        value = state[name]
        return "" if value is None else str(value)
    if optional:
        return ""
    raise MissingStateKeyError(
        f"The instruction uses {{{name}}} but the state has no key {name!r}; set it first or "
        f"write {{{name}?}} to make it optional."
    )


async def _artifact_text(filename: str, optional: bool, context: ReadonlyContext) -> str:
    ctx = context._invocation_context
    service = ctx.artifact_service
    if service is None:
        raise ServiceNotConfiguredError(
            f"Artifact service is not initialized. The instruction uses "
            f"{{artifact.{filename}}}: pass artifact_service to the Runner."
        )
    artifact: object = await service.load_artifact(
        app_name=ctx.app_name,
        user_id=ctx.user_id,
        session_id=ctx.session.id,
        filename=filename,
    )
    if artifact is None:
        if optional:
            return ""
        raise MissingStateKeyError(
            f"The instruction uses {{artifact.{filename}}} but there is no such artifact; "
            f"save it first or write {{artifact.{filename}?}} to make it optional."
        )
    if not isinstance(artifact, types.Part):  # a service of one's own may return text
        return str(artifact)
    from adk_runtime.tools.load_artifacts_tool import as_safe_part_for_llm

    safe = as_safe_part_for_llm(artifact, filename)
    if safe.text is not None:
        return safe.text
    blob = safe.inline_data or safe.file_data
    kind = (blob.mime_type if blob is not None else None) or "unknown type"
    return f"[Artifact {filename}: {kind}, not text]"


def _is_state_name(name: str) -> bool:
    for prefix in _PREFIXES:
        if name.startswith(prefix):
            return name[len(prefix) :].isidentifier()
    return name.isidentifier()


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
