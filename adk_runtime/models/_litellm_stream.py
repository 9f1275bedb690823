"""Folding LiteLLM's streamed chat-completion chunks into responses."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from google.genai import types

from adk_runtime.models._litellm_convert import (
    finish_reason,
    get,
    parse_arguments,
    usage_to_metadata,
)
from adk_runtime.models._turn_end import turn_complete
from adk_runtime.models.llm_response import LlmResponse

__all__ = ["StreamFolder"]


@dataclass
class _Call:
    """A tool call being streamed: its id and name come first, its arguments in pieces."""

    call_id: str | None = None
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class StreamFolder:
    """Turns streamed chunks into partial responses, then one aggregated reply.

    Args:
        model: The requested model name (the ``model_version`` when chunks name none).
    """

    def __init__(self, model: str) -> None:
        self._model = model
        self._version: str | None = None
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _Call] = {}
        self._reason: str | None = None
        self._usage: Any = None

    def _partial(self, part: types.Part) -> LlmResponse:
        return LlmResponse(
            content=types.Content(role="model", parts=[part]),
            partial=True,
            model_version=self._version or self._model,
        )

    def add(self, chunk: Any) -> list[LlmResponse]:
        """Fold ``chunk`` in; return the partial responses it makes (maybe none)."""
        self._version = get(chunk, "model") or self._version
        usage = get(chunk, "usage")
        if usage is not None and get(usage, "total_tokens"):
            self._usage = usage
        choices = get(chunk, "choices") or []
        if not choices:
            return []
        choice = choices[0]
        self._reason = get(choice, "finish_reason") or self._reason
        delta = get(choice, "delta")
        if delta is None:
            return []
        partials: list[LlmResponse] = []
        reasoning = get(delta, "reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            self._reasoning.append(reasoning)
            partials.append(self._partial(types.Part(text=reasoning, thought=True)))
        text = get(delta, "content")
        if isinstance(text, str) and text:
            self._text.append(text)
            partials.append(self._partial(types.Part(text=text)))
        for position, piece in enumerate(get(delta, "tool_calls") or []):
            partials.extend(self._add_call(piece, position))
        return partials

    def _add_call(self, piece: Any, position: int) -> list[LlmResponse]:
        index = get(piece, "index")
        call = self._calls.setdefault(index if isinstance(index, int) else position, _Call())
        call.call_id = get(piece, "id") or call.call_id
        function = get(piece, "function")
        name = get(function, "name")
        started = not call.name and bool(name)
        if name:
            call.name = name
        arguments = get(function, "arguments")
        if arguments:
            call.arguments.append(arguments)
        if not started:
            return []
        function_call = types.FunctionCall(id=call.call_id, name=call.name, will_continue=True)
        return [self._partial(types.Part(function_call=function_call))]

    def close(self) -> LlmResponse:
        """The aggregated, non-partial reply."""
        parts: list[types.Part] = []
        if self._reasoning:
            parts.append(types.Part(text="".join(self._reasoning), thought=True))
        if self._text:
            parts.append(types.Part(text="".join(self._text)))
        for index in sorted(self._calls):
            call = self._calls[index]
            parts.append(
                types.Part(
                    function_call=types.FunctionCall(
                        id=call.call_id or f"call_{index}",
                        name=call.name,
                        args=parse_arguments("".join(call.arguments)),
                    )
                )
            )
        return LlmResponse(
            content=types.Content(role="model", parts=parts) if parts else None,
            partial=False,
            turn_complete=turn_complete(parts),
            finish_reason=finish_reason(self._reason or "stop"),
            usage_metadata=usage_to_metadata(self._usage),
            model_version=self._version or self._model,
        )
