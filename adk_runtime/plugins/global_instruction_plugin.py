"""GlobalInstructionPlugin: one instruction put first in every model request of an App."""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.core._instructions import InstructionProvider, render_instruction
from adk_runtime.core.base_plugin import BasePlugin

if TYPE_CHECKING:
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = ["GlobalInstructionPlugin"]


class GlobalInstructionPlugin(BasePlugin):
    """Puts an application-wide instruction before every agent's system instruction.

    google-adk's replacement for ``LlmAgent.global_instruction`` (which adk_runtime also keeps):
    the same text for every agent of the App, applied as each model request is sent.

    Attributes:
        global_instruction: A string (with ``{key}`` state placeholders, filled as an agent's
            ``instruction`` is) or a function of the ``ReadonlyContext`` (sync or async)
            returning the text.
    """

    def __init__(
        self,
        global_instruction: str | InstructionProvider = "",
        name: str = "global_instruction",
    ) -> None:
        """Create the plugin.

        Args:
            global_instruction: The instruction, or a function that returns it.
            name: The plugin's name.
        """
        super().__init__(name=name)
        self.global_instruction = global_instruction

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Put the rendered instruction first in the request's system instruction."""
        if not self.global_instruction:
            return None
        text = await render_instruction(self.global_instruction, callback_context)
        if not text:
            return None
        config = llm_request.config
        config.system_instruction = _lead(text, config.system_instruction)
        return None


def _lead(text: str, existing: types.ContentUnion | None) -> types.ContentUnion:
    """``text`` followed by ``existing``, keeping the shape ``existing`` has."""
    if not existing:
        return text
    if isinstance(existing, str):
        return f"{text}\n\n{existing}"
    if isinstance(existing, types.Content):
        return existing.model_copy(
            update={"parts": [types.Part(text=text), *(existing.parts or [])]}
        )
    if isinstance(existing, list):
        return [text, *existing]
    return [text, existing]
