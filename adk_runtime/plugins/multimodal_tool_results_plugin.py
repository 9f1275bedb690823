"""MultimodalToolResultsPlugin: parts a tool returns (images, files, text) reach the model."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from google.genai import types

from adk_runtime.agents._tool_media import media_part
from adk_runtime.core.base_plugin import BasePlugin

if TYPE_CHECKING:
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = [
    "PARTS_RETURNED_BY_TOOLS_ID",
    "SESSION_PARTS_RETURNED_BY_TOOLS_ID",
    "MultimodalToolResultsPlugin",
]

PARTS_RETURNED_BY_TOOLS_ID = "temp:PARTS_RETURNED_BY_TOOLS_ID"
"""The state key (``temp:``: this invocation only) of the parts waiting for the next request."""

SESSION_PARTS_RETURNED_BY_TOOLS_ID = "multimodal_tool_results_plugin:PARTS_RETURNED_BY_TOOLS_ID"
"""The session state key of the parts kept for every later request (``retention="session"``).

Not ``temp:``: those parts outlive the invocation, so they are stored with the session."""

_TURN_PARTS = "temp:multimodal_tool_results_plugin:current_turn_parts"
_REPLACED_IN_INVOCATION = "temp:multimodal_tool_results_plugin:updated_in_invocation"

Retention = Literal["next_model_call", "session"]


class MultimodalToolResultsPlugin(BasePlugin):
    """Lets a function tool return ``types.Part`` values that the model then sees as parts.

    A tool that returns a ``Part`` or a list of them (an image as ``inline_data``, a file as
    ``file_data``, text) has them appended to the last content of the next model request, so
    the model gets the media itself rather than a JSON rendering of it. The function response
    keeps the result as well (``{"result": [...]}``), as in google-adk. Any other result is
    left alone.

    A part holding media (bytes or a file's uri) needs no plugin: the function response
    carries it itself (see ``LlmAgent`` tools). With the default retention this plugin then
    forwards only what a function response cannot carry (text parts), so no bytes are sent
    twice, as in google-adk 2.13.

    With ``retention="session"`` the parts are also kept in the session state
    (:data:`SESSION_PARTS_RETURNED_BY_TOOLS_ID`) and appended to every later request of the
    session, until a tool returns parts again in a later invocation (they then replace the
    kept ones). Only ``file_data`` and text parts are kept: ``inline_data`` (bytes) reaches
    the next request only.
    """

    def __init__(
        self,
        name: str = "multimodal_tool_results_plugin",
        *,
        retention: Retention = "next_model_call",
    ) -> None:
        """Create the plugin.

        Args:
            name: The plugin's name.
            retention: ``"next_model_call"`` (the parts go to the next request once) or
                ``"session"`` (see the class docstring).

        Raises:
            ValueError: ``retention`` is neither.
        """
        if retention not in ("next_model_call", "session"):
            raise ValueError(
                f"retention must be 'next_model_call' or 'session', not {retention!r}."
            )
        super().__init__(name)
        self._retention = retention

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> dict[str, Any] | None:
        """Keep the parts a tool returned for the next request; the result is not replaced."""
        parts = _returned_parts(result)
        if not parts:
            return None
        state = tool_context.state
        if self._retention == "next_model_call":
            parts = [part for part in parts if media_part(part) is None]
            if not parts:
                return None
            state[PARTS_RETURNED_BY_TOOLS_ID] = [*state.get(PARTS_RETURNED_BY_TOOLS_ID, []), *parts]
            return None
        kept = [
            part.model_dump(mode="json", exclude_none=True)
            for part in parts
            if not part.inline_data
        ]
        if kept:
            if state.get(_REPLACED_IN_INVOCATION):  # a later call of this invocation: add
                kept = [*state.get(SESSION_PARTS_RETURNED_BY_TOOLS_ID, []), *kept]
            state[_REPLACED_IN_INVOCATION] = True
            state[SESSION_PARTS_RETURNED_BY_TOOLS_ID] = kept
        state[_TURN_PARTS] = [*state.get(_TURN_PARTS, []), *parts]
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Append the waiting (and, with ``retention="session"``, the kept) parts."""
        if not llm_request.contents:
            return None
        state = callback_context.state
        if self._retention == "next_model_call":
            waiting: list[types.Part] = list(state.get(PARTS_RETURNED_BY_TOOLS_ID) or [])
            if waiting:
                state[PARTS_RETURNED_BY_TOOLS_ID] = []
        else:
            current: list[types.Part] = list(state.get(_TURN_PARTS) or [])
            kept = [
                types.Part.model_validate(part)
                for part in state.get(SESSION_PARTS_RETURNED_BY_TOOLS_ID) or []
            ]
            waiting = [part for part in kept if part not in current] + current
            if current:
                state[_TURN_PARTS] = []
        if waiting:
            last = llm_request.contents[-1]
            last.parts = [*(last.parts or []), *waiting]
        return None


def _returned_parts(result: Any) -> list[types.Part]:
    """The parts ``result`` is made of (a part, or a list starting with one), else none."""
    if isinstance(result, types.Part):
        return [result]
    if isinstance(result, list) and result and isinstance(result[0], types.Part):
        return [part for part in result if isinstance(part, types.Part)]
    return []
