"""ContextFilterPlugin: send the model only the last few invocations of a long conversation."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.core.base_plugin import BasePlugin

if TYPE_CHECKING:
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = ["ContextFilterPlugin"]

logger = logging.getLogger(__name__)

ContentFilter = Callable[[list[types.Content]], list[types.Content]]


class ContextFilterPlugin(BasePlugin):
    """Trims each model request's contents; the session keeps its whole history.

    An invocation, here, starts with the user's message (one or more user contents in a row
    that are not function responses) and runs to the next one. With
    ``num_invocations_to_keep=n`` a request is cut to its last ``n`` invocations once it
    holds at least ``n + remove_amount`` of them (so the cut happens every
    ``remove_amount`` invocations, not at each one); a cut never separates a function
    response from its call. ``custom_filter`` then maps the contents to what is sent. A filter
    that fails is logged and the request is sent as it was.
    """

    def __init__(
        self,
        num_invocations_to_keep: int | None = None,
        custom_filter: ContentFilter | None = None,
        name: str = "context_filter_plugin",
        remove_amount: int = 1,
    ) -> None:
        """Create the plugin.

        Args:
            num_invocations_to_keep: How many of the latest invocations to send (None or 0:
                all).
            custom_filter: A function of the contents returning the contents to send.
            name: The plugin's name.
            remove_amount: How many invocations beyond the kept ones accumulate before a cut.

        Raises:
            ValueError: ``remove_amount`` is below 1.
        """
        if remove_amount < 1:
            raise ValueError(f"remove_amount must be 1 or more, not {remove_amount}.")
        super().__init__(name)
        self._num_invocations_to_keep = num_invocations_to_keep
        self._custom_filter = custom_filter
        self._remove_amount = remove_amount

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Replace the request's contents by the filtered ones."""
        try:
            contents = list(llm_request.contents)
            keep = self._num_invocations_to_keep
            if keep:
                starts = _invocation_starts(contents)
                if len(starts) >= keep + self._remove_amount:
                    contents = contents[_paired_cut(contents, starts[-keep]) :]
            if self._custom_filter is not None:
                contents = self._custom_filter(contents)
            llm_request.contents = contents
        except Exception as exc:  # a broken filter must not fail the turn
            logger.error("Context filter %r failed: %s", self.name, type(exc).__name__)
        return None


def _is_user_message(content: types.Content) -> bool:
    parts = content.parts or []
    return content.role == "user" and not any(part.function_response for part in parts)


def _invocation_starts(contents: Sequence[types.Content]) -> list[int]:
    """Indexes of the contents that open an invocation (first of a run of user messages)."""
    starts: list[int] = []
    previous_was_user = False
    for index, content in enumerate(contents):
        is_user = _is_user_message(content)
        if is_user and not previous_was_user:
            starts.append(index)
        previous_was_user = is_user
    return starts


def _paired_cut(contents: Sequence[types.Content], cut: int) -> int:
    """The latest index at or before ``cut`` after which every function response has its call."""
    unanswered: set[str] = set()  # response ids whose call is not yet seen (walking back)
    for index in range(len(contents) - 1, -1, -1):
        for part in reversed(contents[index].parts or []):
            if part.function_response is not None and part.function_response.id:
                unanswered.add(part.function_response.id)
            if part.function_call is not None and part.function_call.id:
                unanswered.discard(part.function_call.id)
        if index <= cut and not unanswered:
            return index
    return 0
