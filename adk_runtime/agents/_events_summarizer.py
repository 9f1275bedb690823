"""``LlmEventSummarizer``: a model writes the summary (``BaseEventsSummarizer`` is the core's).

Public as ``adk_runtime.apps.base_events_summarizer`` and ``adk_runtime.apps.llm_event_summarizer``
(google-adk's paths); here so that the agents' flow can compact during an invocation.
"""

from __future__ import annotations

import json
from contextlib import aclosing
from typing import Any

from google.genai import types

from adk_runtime.core._compaction_config import BaseEventsSummarizer
from adk_runtime.events import Event, EventActions
from adk_runtime.events._credential_secrets import is_credential_part
from adk_runtime.events.event_actions import EventCompaction
from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.platform import uuid as platform_uuid

__all__ = ["LlmEventSummarizer", "as_text"]


_PROMPT = (
    "Below is part of a conversation between a user and an AI assistant; it may begin with "
    "a summary of what came before. Write a summary the assistant can continue the "
    "conversation from, instead of these messages. Start with the language the user writes "
    "in (for example 'Language: English'). Then give what the user asked for, the decisions "
    "taken and the facts learned, the exact names of the tools the assistant called, and "
    "whatever is still open or unanswered. Be brief.\n\n{conversation_history}"
)


class LlmEventSummarizer(BaseEventsSummarizer):
    """Summarise events with a model (the default summarizer of ``EventsCompactionConfig``).

    The events are written out as plain lines (who said what, which tool was called with
    which arguments and what it answered, thoughts included), tool arguments and answers cut
    to :attr:`max_tool_chars` each, and the model is asked for a summary once. Its answer
    becomes the summary (role ``model``) of a compaction event covering the events'
    timestamps; no answer leaves the events as they are.
    """

    max_tool_chars = 2000
    """The longest a tool call's arguments or a tool's answer is written out."""

    def __init__(self, llm: BaseLlm, prompt_template: str | None = None) -> None:
        """Summarise with ``llm``.

        Args:
            llm: The model that writes the summary.
            prompt_template: The request, with a ``{conversation_history}`` placeholder for
                the events (a default is used when None).

        Raises:
            ValueError: ``prompt_template`` has no ``{conversation_history}`` placeholder.
        """
        template = prompt_template or _PROMPT
        if "{conversation_history}" not in template:
            raise ValueError("prompt_template needs a '{conversation_history}' placeholder.")
        self._llm = llm
        self._prompt_template = template

    def _format_events_for_prompt(self, events: list[Event]) -> str:
        """The events as the lines the model reads (credential requests and answers left out)."""
        lines: list[str] = []
        for event in events:
            if event.content is None or not event.content.parts:
                continue
            summary = event.actions.compaction is not None
            for part in event.content.parts:
                if is_credential_part(part):  # the user's keys and tokens: never to a model
                    continue
                if part.text:
                    if part.thought:
                        if not summary:
                            lines.append(f"{event.author} (thinking): {part.text}")
                    else:
                        lines.append(f"{event.author}: {part.text}")
                if part.function_call is not None:
                    args = self._cut(as_text(part.function_call.args))
                    lines.append(f"{event.author} called {part.function_call.name}({args})")
                if part.function_response is not None:
                    answer = self._cut(as_text(part.function_response.response))
                    lines.append(f"{part.function_response.name} answered: {answer}")
        return "\n".join(lines)

    def _cut(self, text: str) -> str:
        if len(text) <= self.max_tool_chars:
            return text
        dropped = len(text) - self.max_tool_chars
        return f"{text[: self.max_tool_chars]}… ({dropped} more characters left out)"

    async def maybe_summarize_events(self, *, events: list[Event]) -> Event | None:
        """Ask the model for a summary of ``events``; None when there are none or no answer."""
        if not events:
            return None
        prompt = self._prompt_template.replace(
            "{conversation_history}", self._format_events_for_prompt(events)
        )
        request = LlmRequest(
            model=self._llm.model,
            contents=[types.Content(role="user", parts=[types.Part(text=prompt)])],
        )
        summary: types.Content | None = None
        usage: types.GenerateContentResponseUsageMetadata | None = None
        async with aclosing(self._llm.generate_content_async(request, stream=False)) as answers:
            async for response in answers:
                if response.content is not None and response.content.parts:
                    summary = response.content.model_copy(update={"role": "model"})
                    usage = response.usage_metadata
                    break
        if summary is None:
            return None
        timestamps = [event.timestamp for event in events]
        return Event(
            author="user",
            invocation_id="e-" + platform_uuid.new_uuid(),  # an invocation id of its own
            usage_metadata=usage,
            actions=EventActions(
                compaction=EventCompaction(
                    start_timestamp=min(timestamps),
                    end_timestamp=max(timestamps),
                    compacted_content=summary,
                )
            ),
        )


def as_text(value: Any) -> str:
    """``value`` as JSON text (``str`` of what JSON cannot hold), as a model is shown it."""
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
