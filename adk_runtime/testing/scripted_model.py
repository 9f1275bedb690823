"""ScriptedModel: a model that answers from a script and records what it was asked."""

from __future__ import annotations

import inspect
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Any, TypeAlias

from google.genai import types
from pydantic import Field

from adk_runtime.errors import ScriptExhaustedError
from adk_runtime.models._turn_end import turn_complete
from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse

__all__ = ["Reply", "ScriptExhaustedError", "ScriptedModel", "function_call"]

Reply: TypeAlias = (
    str | types.Part | types.Content | LlmResponse | Sequence[types.Part] | Sequence[LlmResponse]
)
"""A reply: text, a part (e.g. a function call), parts, a content, a response, or a list of
responses yielded in order (a hand-made stream)."""

ReplyFunction: TypeAlias = Callable[[LlmRequest], Reply | Awaitable[Reply]]


def function_call(
    name: str, args: dict[str, Any] | None = None, *, id: str | None = None
) -> types.Part:
    """A function-call part, for scripts (the id defaults to a fresh one)."""
    call_id = id or f"call-{uuid.uuid4().hex[:12]}"
    return types.Part(function_call=types.FunctionCall(id=call_id, name=name, args=args or {}))


class ScriptedModel(BaseLlm):
    """Replies from ``replies`` in order (or from ``handler(request)``), recording requests.

    When the agent streams, a text reply is sent as one partial chunk per word followed by
    the aggregated reply, as a real streaming model does.

    Attributes:
        replies: The replies, one per call; a callable entry is called with the request.
        handler: Used instead of ``replies`` when set: ``handler(request) -> Reply``.
        requests: Every request received, in order.
    """

    model: str = "scripted"
    replies: list[Reply | ReplyFunction] = Field(default_factory=list)
    handler: ReplyFunction | None = None
    requests: list[LlmRequest] = Field(default_factory=list)

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Answer with the next reply of the script.

        Raises:
            ScriptExhaustedError: No reply is left.
        """
        index = len(self.requests)
        self.requests.append(llm_request)
        reply = await self._next_reply(index, llm_request)
        responses = _as_responses(reply)
        if stream and len(responses) == 1 and not responses[0].partial:
            for chunk in _chunks(responses[0]):
                yield chunk
        for response in responses:
            yield response

    async def _next_reply(self, index: int, llm_request: LlmRequest) -> Reply:
        entry: Reply | ReplyFunction
        if self.handler is not None:
            entry = self.handler
        elif index < len(self.replies):
            entry = self.replies[index]
        else:
            raise ScriptExhaustedError(
                f"ScriptedModel got call #{index + 1} but its script has {len(self.replies)} "
                "replies; add replies or use a handler."
            )
        if callable(entry):
            result = entry(llm_request)
            return await result if inspect.isawaitable(result) else result
        return entry


def _as_responses(reply: Reply) -> list[LlmResponse]:
    if isinstance(reply, LlmResponse):
        return [reply]
    if isinstance(reply, str):
        return [_response([types.Part(text=reply)])]
    if isinstance(reply, types.Part):
        return [_response([reply])]
    if isinstance(reply, types.Content):
        return [LlmResponse(content=reply)]
    items = list(reply)
    if all(isinstance(item, LlmResponse) for item in items):
        return items  # type: ignore[return-value]
    return [_response(items)]  # type: ignore[arg-type]


def _response(parts: list[types.Part]) -> LlmResponse:
    content = types.Content(role="model", parts=parts)
    return LlmResponse(content=content, turn_complete=turn_complete(parts))


def _chunks(response: LlmResponse) -> list[LlmResponse]:
    if response.content is None:
        return []
    chunks: list[LlmResponse] = []
    for part in response.content.parts or []:
        if part.text:
            words = part.text.split(" ")
            pieces = [word + " " for word in words[:-1]] + [words[-1]]
            chunks += [_response([types.Part(text=piece)]) for piece in pieces if piece]
        else:
            chunks.append(_response([part]))
    for chunk in chunks:
        chunk.partial = True
        chunk.turn_complete = None
    return chunks
