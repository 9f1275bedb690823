"""Instruction text from a template or a provider: ``{key}`` filled from state, ``{artifact.x}``.

An agent's ``instruction``, the App's global instruction and a skill's instructions are
rendered here (``utils.instructions_utils.inject_session_state`` is google-adk's name).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from typing import TypeAlias

from google.genai import types

from adk_runtime import _callbacks
from adk_runtime.core.readonly_context import ReadonlyContext
from adk_runtime.errors import MissingStateKeyError, ServiceNotConfiguredError
from adk_runtime.models._artifact_parts import as_safe_part_for_llm
from adk_runtime.sessions.state import State

__all__ = ["InstructionProvider", "inject_session_state", "render_instruction"]

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


async def inject_session_state(template: str, readonly_context: ReadonlyContext) -> str:
    """``template`` with its ``{key}`` placeholders filled from the session state.

    ``{key?}`` is empty when the key is unset, ``{artifact.name}`` is an artifact's text
    (decoded from textual data; a one-line note for an image or other binary data), and
    ``${name}`` is left as written; the rules are the agent instruction's
    (``LlmAgent.instruction``).

    Raises:
        MissingStateKeyError: A required key or artifact is missing (a ``KeyError``).
        ServiceNotConfiguredError: The template names an artifact and there is no artifact
            service (a ``ValueError``).
    """
    return await render_instruction(template, readonly_context)


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
