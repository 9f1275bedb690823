"""Folding a streamed model reply into partial chunks and one complete reply.

This is the one aggregator of the runtime: :class:`adk_runtime.models.Gemini` streams
through it, and google-adk's path ``utils.streaming_utils`` exposes it for models of one's
own. What it does depends on the ``PROGRESSIVE_SSE_STREAMING`` feature switch (on by
default, read once per aggregator):

- On: every chunk is passed on as a partial response; the complete reply holds every part
  in the order it came (consecutive text of the same kind joined, a thought signature kept
  on the part it came with), function calls whose arguments were streamed piece by piece
  (``partial_args``, ``will_continue``) put together, and each call given an id (the
  model's, or a runtime ``adk-…`` id that its partial chunks already show).
- Off: google-adk's earlier behaviour. Only text is gathered; a chunk of anything else is
  passed on as a complete response, preceded by the text gathered up to it.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from google.genai import types

from adk_runtime.features import FeatureName, is_feature_enabled
from adk_runtime.models import _json_path
from adk_runtime.models._call_ids import CLIENT_CALL_ID_PREFIX
from adk_runtime.models._turn_end import turn_complete
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.platform import uuid as platform_uuid

__all__ = ["StreamingResponseAggregator"]


def _new_call_id() -> str:
    return CLIENT_CALL_ID_PREFIX + platform_uuid.new_uuid()


class _OpenCall:
    """A function call whose arguments are still arriving."""

    def __init__(self, slot: int, call_id: str) -> None:
        self.slot = slot  # where the call goes among the reply's parts
        self.id = call_id
        self.name: str | None = None
        self.signature: bytes | None = None
        self.args: dict[str, Any] = {}
        self.strings: dict[str, list[str]] = {}  # string pieces by path, joined at the end

    def take(self, arg: types.PartialArg) -> None:
        """Fold one streamed argument piece in."""
        path = arg.json_path
        if not path:
            return
        if arg.string_value is not None:
            pieces = self.strings.get(path)
            if pieces is None:
                steps = _json_path.parse_path(path)
                earlier, found = _json_path.get_path(self.args, steps)
                pieces = [earlier] if found and isinstance(earlier, str) else []
                self.strings[path] = pieces
                _json_path.set_path(self.args, steps, "")  # the key keeps its arrival order
            pieces.append(arg.string_value)
            return
        if arg.number_value is not None:
            value: Any = arg.number_value
        elif arg.bool_value is not None:
            value = arg.bool_value
        elif arg.null_value is not None:
            value = None
        else:  # an empty object or list: nothing to write
            return
        self.strings.pop(path, None)
        _json_path.set_path(self.args, _json_path.parse_path(path), value)

    def part(self) -> types.Part:
        """The complete call."""
        for path, pieces in self.strings.items():
            _json_path.set_path(self.args, _json_path.parse_path(path), "".join(pieces))
        call = types.FunctionCall(name=self.name, id=self.id, args=self.args)
        return types.Part(function_call=call, thought_signature=self.signature)


class StreamingResponseAggregator:
    """Turns the chunks of one streamed reply into partial responses and a complete one.

    Feed each chunk to :meth:`process_response` and pass on what it yields; then
    :meth:`close` gives the complete reply.
    """

    def __init__(self) -> None:
        """Start a reply (the ``PROGRESSIVE_SSE_STREAMING`` switch is read now)."""
        self._progressive = is_feature_enabled(FeatureName.PROGRESSIVE_SSE_STREAMING)
        self._last: types.GenerateContentResponse | None = None
        self._finish_reason: types.FinishReason | None = None
        self._usage: types.GenerateContentResponseUsageMetadata | None = None
        self._grounding: types.GroundingMetadata | None = None
        self._citation: types.CitationMetadata | None = None
        self._parts: list[types.Part | None] = []  # None: the slot of a call still open
        self._text: list[str] = []
        self._text_thought = False
        self._text_signature: bytes | None = None
        self._call: _OpenCall | None = None
        self._thoughts: list[str] = []  # switch off: thought text and answer text
        self._answer: list[str] = []

    async def process_response(
        self, response: types.GenerateContentResponse
    ) -> AsyncGenerator[LlmResponse, None]:
        """Fold one chunk in.

        Args:
            response: The chunk, as google-genai streams it.

        Yields:
            The chunk as a partial response. With the switch off, a chunk other than text
            is yielded as a complete response instead, after a complete response with the
            text gathered so far (if any).
        """
        self._last = response
        chunk = _chunk_response(response)
        self._finish_reason = chunk.finish_reason or self._finish_reason
        self._usage = chunk.usage_metadata or self._usage
        self._grounding = chunk.grounding_metadata or self._grounding
        self._citation = chunk.citation_metadata or self._citation
        parts = (chunk.content.parts if chunk.content else None) or []
        if self._progressive:
            for part in parts:
                self._fold(part)
            chunk.partial = True
            yield chunk
            return
        first = parts[0] if parts else None
        if first is not None and first.text:
            (self._thoughts if first.thought else self._answer).append(first.text)
            chunk.partial = True
        elif (self._thoughts or self._answer) and (first is None or first.inline_data is None):
            yield LlmResponse(
                content=types.Content(role="model", parts=self._gathered_text()),
                grounding_metadata=chunk.grounding_metadata,
                citation_metadata=chunk.citation_metadata,
                usage_metadata=chunk.usage_metadata,
                finish_reason=chunk.finish_reason,
                model_version=chunk.model_version,
            )
        yield chunk

    def close(self) -> LlmResponse | None:
        """The complete reply, or None when no chunk came.

        A finish reason other than ``STOP`` (or a blocked prompt) is the reply's
        ``error_code``, with the model's message as ``error_message``.
        """
        last = self._last
        if last is None:
            return None
        candidate = last.candidates[0] if last.candidates else None
        finish = self._finish_reason or (candidate.finish_reason if candidate else None)
        error_code: str | None = None
        error_message: str | None = None
        if finish is not None and finish != types.FinishReason.STOP:
            error_code = finish.value
            error_message = candidate.finish_message if candidate else None
        elif candidate is None and last.prompt_feedback is not None:
            reason = last.prompt_feedback.block_reason
            error_code = reason.value if reason is not None else None
            error_message = last.prompt_feedback.block_reason_message
        parts = self._complete_parts() if self._progressive else self._gathered_text()
        return LlmResponse(
            content=types.Content(role="model", parts=parts) if parts else None,
            grounding_metadata=self._grounding,
            citation_metadata=self._citation,
            error_code=error_code,
            error_message=error_message,
            usage_metadata=self._usage,
            finish_reason=finish,
            partial=False,
            turn_complete=turn_complete(parts),
            model_version=last.model_version,
        )

    def _fold(self, part: types.Part) -> None:
        if part.text is not None:
            self._fold_text(part)
        elif part.function_call is not None:
            self._fold_call(part)
        else:
            self._flush_text()
            self._parts.append(part.model_copy())

    def _fold_text(self, part: types.Part) -> None:
        thought = bool(part.thought)
        if self._text and thought != self._text_thought:
            self._flush_text()
        self._text_thought = thought
        self._text.append(part.text or "")
        if self._text_signature is None:  # the model wants it back with the joined text
            self._text_signature = part.thought_signature

    def _flush_text(self) -> None:
        if not self._text:
            return
        self._parts.append(
            types.Part(
                text="".join(self._text),
                thought=True if self._text_thought else None,
                thought_signature=self._text_signature,
            )
        )
        self._text, self._text_signature = [], None

    def _fold_call(self, part: types.Part) -> None:
        call = part.function_call
        assert call is not None
        streamed = (
            bool(call.partial_args)
            or call.will_continue is not None
            or (self._call is not None and not call.args)
        )
        if not streamed:  # a whole call in one chunk
            self._flush_text()
            self._close_call()
            if call.name:  # a nameless, argument-less call only marks the end of a stream
                call.id = call.id or _new_call_id()
                self._parts.append(part.model_copy(deep=True))
            return
        current = self._call
        if current is not None and call.name and current.name and call.name != current.name:
            self._flush_text()
            self._close_call()
            current = None
        if current is None:
            self._flush_text()
            current = self._call = _OpenCall(len(self._parts), call.id or _new_call_id())
            self._parts.append(None)
        current.name = call.name or current.name
        call.id = call.id or current.id  # the partial chunk shows the call's id
        if current.signature is None:
            current.signature = part.thought_signature
        for arg in call.partial_args or []:
            current.take(arg)
        if not call.will_continue:  # False, or left out on the closing chunk
            self._flush_text()
            self._close_call()

    def _close_call(self) -> None:
        current, self._call = self._call, None
        if current is None or not current.name:
            return
        if current.slot < len(self._parts) and self._parts[current.slot] is None:
            self._parts[current.slot] = current.part()
        else:
            self._parts.append(current.part())

    def _complete_parts(self) -> list[types.Part]:
        """The reply's parts; a call repeating an id the model gave is dropped."""
        self._flush_text()
        self._close_call()
        seen: set[str] = set()
        parts: list[types.Part] = []
        for part in self._parts:
            if part is None:
                continue
            call_id = part.function_call.id if part.function_call else None
            if call_id and not call_id.startswith(CLIENT_CALL_ID_PREFIX):
                if call_id in seen:
                    continue
                seen.add(call_id)
            parts.append(part)
        return parts

    def _gathered_text(self) -> list[types.Part]:
        """Switch off: the thought text and the answer text gathered so far (then cleared)."""
        parts: list[types.Part] = []
        if self._thoughts:
            parts.append(types.Part(text="".join(self._thoughts), thought=True))
        if self._answer:
            parts.append(types.Part(text="".join(self._answer)))
        self._thoughts, self._answer = [], []
        return parts


def _chunk_response(response: types.GenerateContentResponse) -> LlmResponse:
    """One chunk as a response; a chunk with no candidate and no feedback carries nothing."""
    if not response.candidates and response.prompt_feedback is None:
        return LlmResponse(
            usage_metadata=response.usage_metadata, model_version=response.model_version
        )
    return LlmResponse.create(response)
