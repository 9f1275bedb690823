"""Folding the server-sent events of a streamed Claude reply into responses."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import Any

from google.genai import types

from adk_runtime.models._anthropic_convert import to_google_genai_finish_reason, usage_to_metadata
from adk_runtime.models.llm_response import LlmResponse

__all__ = ["StreamFolder"]

logger = logging.getLogger(__name__)


def _get(obj: Any, name: str) -> Any:
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


@dataclass
class _Block:
    """One content block of the reply as it is being streamed."""

    kind: str
    text: str = ""
    signature: str = ""
    call_id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)

    def part(self) -> types.Part:
        if self.kind == "thinking":
            signature = self.signature.encode("utf-8") if self.signature else None
            return types.Part(text=self.text, thought=True, thought_signature=signature)
        if self.kind == "redacted_thinking":
            return types.Part(thought=True, thought_signature=self.signature.encode("utf-8"))
        if self.kind == "tool_use":
            return types.Part(
                function_call=types.FunctionCall(
                    id=self.call_id, name=self.name, args=_arguments("".join(self.arguments))
                )
            )
        return types.Part(text=self.text)


def _arguments(raw: str) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        logger.warning("Claude streamed tool arguments that are not JSON; using none.")
        return {}
    return value if isinstance(value, dict) else {}


class StreamFolder:
    """Turns Messages API stream events into partial responses and the final one.

    Args:
        model: The model name, the ``model_version`` of partial tool calls.
        schema_tool: The name of the response-schema tool (its calls are the answer).
        schema_text: Stream the schema tool's input as partial text (it is the answer
            itself, not wrapped in an object).
    """

    def __init__(
        self, model: str, schema_tool: str | None = None, schema_text: bool = False
    ) -> None:
        self._model = model
        self._schema_tool = schema_tool
        self._schema_text = schema_text
        self._blocks: dict[int, _Block] = {}
        self._usage: dict[str, Any] = {}
        self._stop_reason: str | None = None
        self._version: str | None = None

    def _partial(self, part: types.Part, version: str | None = None) -> LlmResponse:
        return LlmResponse(
            content=types.Content(role="model", parts=[part]),
            partial=True,
            model_version=version or self._version,
        )

    def add(self, event: Any) -> list[LlmResponse]:
        """Fold ``event`` in; return the partial responses it makes (maybe none)."""
        kind = _get(event, "type")
        if kind == "message_start":
            message = _get(event, "message")
            self._version = _get(message, "model")
            self._take_usage(_get(message, "usage"))
        elif kind == "content_block_start":
            return self._start(_get(event, "index"), _get(event, "content_block"))
        elif kind == "content_block_delta":
            return self._delta(_get(event, "index"), _get(event, "delta"))
        elif kind == "message_delta":
            self._take_usage(_get(event, "usage"))
            self._stop_reason = _get(_get(event, "delta"), "stop_reason") or self._stop_reason
        return []

    def _take_usage(self, usage: Any) -> None:
        if usage is None:
            return
        for name in (
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ):
            value = _get(usage, name)
            if isinstance(value, int):
                self._usage[name] = value
        details = _get(usage, "output_tokens_details")
        thinking = _get(details, "thinking_tokens")
        if isinstance(thinking, int):
            self._usage["output_tokens_details"] = {"thinking_tokens": thinking}

    def _start(self, index: int, block: Any) -> list[LlmResponse]:
        kind = str(_get(block, "type"))
        if kind == "thinking":
            state = _Block(
                kind, text=_get(block, "thinking") or "", signature=_get(block, "signature") or ""
            )
        elif kind == "redacted_thinking":
            state = _Block(kind, signature=_get(block, "data") or "")
        elif kind == "tool_use":
            state = _Block(kind, call_id=_get(block, "id"), name=_get(block, "name"))
        else:
            state = _Block(kind, text=_get(block, "text") or "")
        self._blocks[index] = state
        if kind != "tool_use" or state.name == self._schema_tool:
            return []
        call = types.FunctionCall(id=state.call_id, name=state.name, will_continue=True)
        return [self._partial(types.Part(function_call=call), version=self._model)]

    def _delta(self, index: int, delta: Any) -> list[LlmResponse]:
        kind = _get(delta, "type")
        if kind == "text_delta":
            text = _get(delta, "text") or ""
            self._blocks.setdefault(index, _Block("text")).text += text
            return [self._partial(types.Part(text=text))]
        if kind == "thinking_delta":
            text = _get(delta, "thinking") or ""
            self._blocks.setdefault(index, _Block("thinking")).text += text
            return [self._partial(types.Part(text=text, thought=True))]
        if kind == "signature_delta":
            self._blocks.setdefault(index, _Block("thinking")).signature += (
                _get(delta, "signature") or ""
            )
        elif kind == "input_json_delta" and index in self._blocks:
            chunk = _get(delta, "partial_json") or ""
            block = self._blocks[index]
            block.arguments.append(chunk)
            if chunk and self._schema_text and block.name == self._schema_tool:
                return [self._partial(types.Part(text=chunk))]
        return []

    def close(self) -> LlmResponse:
        """The aggregated, non-partial reply."""
        parts = [self._blocks[index].part() for index in sorted(self._blocks)]
        return LlmResponse(
            content=types.Content(role="model", parts=parts),
            usage_metadata=usage_to_metadata(self._usage),
            finish_reason=to_google_genai_finish_reason(self._stop_reason),
            model_version=self._version,
            partial=False,
        )
