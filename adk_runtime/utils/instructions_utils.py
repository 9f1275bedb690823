"""google-adk's ``utils.instructions_utils``: fill an instruction template from state."""

from __future__ import annotations

from adk_runtime.agents._instructions import InstructionProvider, render_instruction
from adk_runtime.core.readonly_context import ReadonlyContext

__all__ = ["InstructionProvider", "ReadonlyContext", "inject_session_state"]


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
