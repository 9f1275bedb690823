"""Replies of Gemini's Interactions API: interactions and streamed events into responses.

The public names are in :mod:`adk_runtime.models.interactions_utils`.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import logging
from typing import Any

from google.genai import interactions as gi
from google.genai import types

from adk_runtime.models._interactions_request import MEDIA_KINDS
from adk_runtime.models.llm_response import LlmResponse

__all__ = [
    "FINISHED_TURN_STATUSES",
    "StreamState",
    "convert_interaction_event_to_llm_response",
    "convert_interaction_to_llm_response",
    "error_response",
    "event_interaction",
]

logger = logging.getLogger("adk_runtime.models.interactions_utils")  # one logger, as public

FINISHED_TURN_STATUSES = frozenset({"completed", "requires_action"})
"""Statuses of a model turn that ended (``requires_action``: it waits for function results)."""


def _result_response(result: Any) -> dict[str, Any]:
    """A ``FunctionResponse.response`` (a dict) for a step's result."""
    if isinstance(result, dict):
        return dict(result)  # pyright: ignore[reportUnknownArgumentType]
    if hasattr(result, "model_dump"):  # the SDK's free-form object: its fields
        dumped = result.model_dump(mode="json")
        return dumped if isinstance(dumped, dict) else {"result": dumped}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(result, list):
        items = [i.model_dump(mode="json") if hasattr(i, "model_dump") else i for i in result]  # pyright: ignore[reportUnknownVariableType, reportUnknownMemberType]
        return {"result": items}
    return {"result": result}


def _language(arguments: Any) -> types.Language:
    language = getattr(arguments, "language", None)
    if isinstance(language, str) and language.lower() == "python":
        return types.Language.PYTHON
    return types.Language.LANGUAGE_UNSPECIFIED


def _code_part(arguments: Any) -> types.Part:
    """The ``executable_code`` part of a code execution call's arguments."""
    code = types.ExecutableCode(code=arguments.code, language=_language(arguments))
    return types.Part(executable_code=code)


def _code_result_part(output: str | None, is_error: bool | None) -> types.Part:
    outcome = types.Outcome.OUTCOME_FAILED if is_error else types.Outcome.OUTCOME_OK
    result = types.CodeExecutionResult(output=output or "", outcome=outcome)
    return types.Part(code_execution_result=result)


def _result_part(call_id: str | None, name: str | None, result: Any) -> types.Part:
    """The ``function_response`` part of a function result the API ran (an MCP tool's, say)."""
    response = types.FunctionResponse(
        id=call_id or "", name=name, response=_result_response(result)
    )
    return types.Part(function_response=response)


def _media_part(content: Any) -> types.Part | None:
    data, uri, mime_type = content.data, content.uri, content.mime_type
    if data:
        raw = base64.b64decode(data) if isinstance(data, str) else data
        return types.Part(inline_data=types.Blob(data=raw, mime_type=mime_type))
    if uri:
        return types.Part(file_data=types.FileData(file_uri=uri, mime_type=mime_type))
    return None


@dataclasses.dataclass
class _Grounding:
    queries: list[str] = dataclasses.field(default_factory=list)
    chunks: list[types.GroundingChunk] = dataclasses.field(default_factory=list)
    supports: list[types.GroundingSupport] = dataclasses.field(default_factory=list)
    entry_point: types.SearchEntryPoint | None = None

    def cite(self, annotations: list[Any] | None) -> types.GroundingMetadata | None:
        """Add the URL citations among ``annotations``; the new ones, or None."""
        first = len(self.chunks)
        for annotation in annotations or []:
            if not isinstance(annotation, gi.URLCitation):
                continue
            self.supports.append(
                types.GroundingSupport(
                    segment=types.Segment(
                        start_index=annotation.start_index, end_index=annotation.end_index
                    ),
                    grounding_chunk_indices=[len(self.chunks)],
                )
            )
            self.chunks.append(
                types.GroundingChunk(
                    web=types.GroundingChunkWeb(uri=annotation.url, title=annotation.title)
                )
            )
        if len(self.chunks) == first:
            return None
        return types.GroundingMetadata(
            grounding_chunks=self.chunks[first:], grounding_supports=self.supports[first:]
        )

    def search(self, queries: list[str] | None) -> types.GroundingMetadata | None:
        """Add the queries a search ran; them, or None."""
        if not queries:
            return None
        self.queries.extend(queries)
        return types.GroundingMetadata(web_search_queries=list(queries))

    def suggest(self, results: list[Any] | None) -> types.GroundingMetadata | None:
        """Keep the first search suggestions among ``results``; them, or None."""
        for result in results or []:
            if getattr(result, "search_suggestions", None):
                self.entry_point = types.SearchEntryPoint(
                    rendered_content=result.search_suggestions
                )
                return types.GroundingMetadata(search_entry_point=self.entry_point)
        return None

    def metadata(self) -> types.GroundingMetadata | None:
        if not (self.queries or self.chunks or self.supports or self.entry_point):
            return None
        return types.GroundingMetadata(
            web_search_queries=self.queries or None,
            grounding_chunks=self.chunks or None,
            grounding_supports=self.supports or None,
            search_entry_point=self.entry_point,
        )


def _step_parts(step: Any, grounding: _Grounding) -> list[types.Part]:  # noqa: C901
    """The parts of one output step (search steps feed ``grounding`` instead)."""
    if isinstance(step, gi.ModelOutputStep):
        parts: list[types.Part] = []
        for content in step.content or []:
            if isinstance(content, gi.TextContent):
                parts.append(types.Part(text=content.text))
                grounding.cite(content.annotations)
            elif getattr(content, "type", None) in (*MEDIA_KINDS, "document"):
                part = _media_part(content)
                if part is not None:
                    parts.append(part)
        return parts
    if isinstance(step, gi.FunctionCallStep):
        call = types.FunctionCall(id=step.id, name=step.name, args=dict(step.arguments or {}))
        return [types.Part(function_call=call)]
    if isinstance(step, gi.FunctionResultStep):
        return [_result_part(step.call_id, step.name, step.result)]
    if isinstance(step, gi.ThoughtStep):
        summary = "".join(
            item.text for item in step.summary or [] if isinstance(item, gi.TextContent)
        )
        if not step.signature and not summary:
            return []
        part = types.Part(thought=True, text=summary or None)
        if step.signature:
            part.thought_signature = base64.b64decode(step.signature)
        return [part]
    if isinstance(step, gi.CodeExecutionCallStep):
        return [_code_part(step.arguments)]
    if isinstance(step, gi.CodeExecutionResultStep):
        return [_code_result_part(step.result, step.is_error)]
    if isinstance(step, gi.GoogleSearchCallStep):
        grounding.search(step.arguments.queries)
    elif isinstance(step, gi.GoogleSearchResultStep):
        grounding.suggest(step.result)
    return []


def _usage(usage: gi.Usage | None) -> types.GenerateContentResponseUsageMetadata | None:
    if usage is None:
        return None
    total = usage.total_tokens
    if total is None:  # the reported total also counts thoughts and tool use: prefer it
        total = (usage.total_input_tokens or 0) + (usage.total_output_tokens or 0)
    return types.GenerateContentResponseUsageMetadata(
        prompt_token_count=usage.total_input_tokens,
        candidates_token_count=usage.total_output_tokens,
        cached_content_token_count=usage.total_cached_tokens,
        thoughts_token_count=usage.total_thought_tokens,
        tool_use_prompt_token_count=usage.total_tool_use_tokens,
        total_token_count=total,
    )


def error_response(
    code: str | None, message: str | None, interaction_id: str | None
) -> LlmResponse:
    """A terminal error response of an interaction (defaults for a missing code or text)."""
    return LlmResponse(
        error_code=code or "UNKNOWN_ERROR",
        error_message=message or "The interaction failed.",
        turn_complete=True,
        interaction_id=interaction_id,
    )


_UNFINISHED = {
    "cancelled": "The interaction was cancelled.",
    "incomplete": "The interaction ended before the model finished its turn.",
    "budget_exceeded": "The interaction ran out of its budget.",
    "requires_continuation": "The interaction stopped and asks to be continued.",
}


def _status_error(interaction: Any) -> LlmResponse | None:
    status = interaction.status
    if status == "failed":
        error = getattr(interaction, "error", None)
        errors = getattr(interaction, "errors", None)
        if error is None and errors:
            error = errors[0]
        code = getattr(error, "code", None)
        return error_response(
            None if code is None else str(code),
            getattr(error, "message", None),
            interaction.id,
        )
    if status in _UNFINISHED:
        return error_response(str(status).upper(), _UNFINISHED[status], interaction.id)
    return None


def convert_interaction_to_llm_response(interaction: Any) -> LlmResponse:
    """The response for a whole interaction (a non-streamed reply, or a completed event's).

    A failed, cancelled or otherwise unfinished interaction is an error response; one that
    completed or waits for function results (``requires_action``) is the model's turn,
    finished (``finish_reason`` STOP).
    """
    failed = _status_error(interaction)
    if failed is not None:
        return failed
    grounding = _Grounding()
    parts = [part for step in interaction.steps or [] for part in _step_parts(step, grounding)]
    finished = interaction.status in FINISHED_TURN_STATUSES
    return LlmResponse(
        content=types.Content(role="model", parts=parts) if parts else None,
        grounding_metadata=grounding.metadata(),
        usage_metadata=_usage(interaction.usage),
        finish_reason=types.FinishReason.STOP if finished else None,
        turn_complete=finished,
        interaction_id=interaction.id,
        model_version=getattr(interaction, "model", None),
    )


@dataclasses.dataclass
class StreamState:
    """What a stream has said so far: the parts of the final reply, grounding, usage.

    Attributes:
        parts: The reply's parts in order; consecutive text (or thought) deltas of one step
            grow one part.
        calls: The function-call parts of the steps still open, by step index; a call's
            ``partial_args`` holds its streamed argument text until the step stops.
        grounding: The searches, suggestions and citations seen (the reply's grounding).
        total_usage: The latest usage a delta reported.
    """

    parts: list[types.Part] = dataclasses.field(default_factory=list)
    calls: dict[int, types.Part] = dataclasses.field(default_factory=dict)
    grounding: _Grounding = dataclasses.field(default_factory=_Grounding)
    total_usage: gi.Usage | None = None
    _growing: tuple[int, str] | None = None

    @property
    def web_search_queries(self) -> list[str]:
        """The queries Google Search ran, in order."""
        return self.grounding.queries

    @property
    def grounding_chunks(self) -> list[types.GroundingChunk]:
        """The cited web pages, in order."""
        return self.grounding.chunks

    @property
    def grounding_supports(self) -> list[types.GroundingSupport]:
        """The text segments each citation supports."""
        return self.grounding.supports

    @property
    def search_entry_point(self) -> types.SearchEntryPoint | None:
        """The search suggestions to show with the reply."""
        return self.grounding.entry_point

    def _grow(self, index: int, kind: str, text: str) -> types.Part:
        """Append ``text`` to the current part of step ``index`` (or start one)."""
        if self._growing == (index, kind) and self.parts:
            part = self.parts[-1]
            part.text = (part.text or "") + text
        else:
            part = types.Part(text=text, thought=True if kind == "thought" else None)
            self.parts.append(part)
        self._growing = (index, kind)
        return types.Part(text=text, thought=part.thought)

    def _add(self, part: types.Part) -> types.Part:
        self.parts.append(part)
        self._growing = None
        return part


def _partial(part: types.Part, interaction_id: str | None) -> LlmResponse:
    return LlmResponse(
        content=types.Content(role="model", parts=[part]),
        partial=True,
        turn_complete=False,
        interaction_id=interaction_id,
    )


def _start(
    event: gi.StepStart, state: StreamState, interaction_id: str | None
) -> LlmResponse | None:
    """A function call's step starts: keep its part, and announce the call (no arguments)."""
    step = event.step
    if not isinstance(step, gi.FunctionCallStep):
        return None
    call = types.FunctionCall(
        id=step.id, name=step.name, args=dict(step.arguments) or None, partial_args=[]
    )
    state.calls[event.index] = state._add(types.Part(function_call=call))
    announced = types.FunctionCall(id=step.id, name=step.name, partial_args=[])
    return _partial(types.Part(function_call=announced), interaction_id)


def _partial_grounding(
    metadata: types.GroundingMetadata | None, interaction_id: str | None
) -> LlmResponse | None:
    if metadata is None:
        return None
    return LlmResponse(
        grounding_metadata=metadata,
        partial=True,
        turn_complete=False,
        interaction_id=interaction_id,
    )


def _delta(  # noqa: C901
    event: gi.StepDelta, state: StreamState, interaction_id: str | None
) -> LlmResponse | None:
    delta: Any = event.delta
    if event.metadata is not None and event.metadata.total_usage is not None:
        state.total_usage = event.metadata.total_usage
    if isinstance(delta, gi.TextDelta):
        if not delta.text:
            return None
        return _partial(state._grow(event.index, "text", delta.text), interaction_id)
    if isinstance(delta, gi.ThoughtSummaryDelta):
        content = delta.content
        if not isinstance(content, gi.TextContent) or not content.text:
            return None
        return _partial(state._grow(event.index, "thought", content.text), interaction_id)
    if isinstance(delta, gi.ThoughtSignatureDelta):
        if delta.signature:
            signature = base64.b64decode(delta.signature)
            thought = next((p for p in reversed(state.parts) if p.thought), None)
            if thought is None or thought.thought_signature is not None:
                state._add(types.Part(thought=True, thought_signature=signature))
            else:
                thought.thought_signature = signature
        return None
    if isinstance(delta, gi.ArgumentsDelta):
        return _arguments(event.index, delta.arguments, state, interaction_id)
    if isinstance(delta, gi.TextAnnotationDelta):
        return _partial_grounding(state.grounding.cite(delta.annotations), interaction_id)
    if isinstance(delta, gi.GoogleSearchCallDelta):
        queries = None if delta.arguments is None else delta.arguments.queries
        return _partial_grounding(state.grounding.search(queries), interaction_id)
    if isinstance(delta, gi.GoogleSearchResultDelta):
        return _partial_grounding(state.grounding.suggest(delta.result), interaction_id)
    part = _delta_part(delta)
    if part is None:
        _unkept(delta)
        return None
    return _partial(state._add(part), interaction_id)


def _arguments(
    index: int, text: str | None, state: StreamState, interaction_id: str | None
) -> LlmResponse | None:
    """A piece of a function call's arguments: kept for its step's stop, and sent on."""
    part = state.calls.get(index)
    if part is None or part.function_call is None:
        logger.warning("Interactions stream: arguments for step %s, not a function call.", index)
        return None
    if not text:
        return None
    partial_args = part.function_call.partial_args
    if partial_args is None:
        part.function_call.partial_args = partial_args = []
    partial_args.append(types.PartialArg(string_value=text))
    piece = types.FunctionCall(
        name=part.function_call.name, partial_args=[types.PartialArg(string_value=text)]
    )
    return _partial(types.Part(function_call=piece), interaction_id)


def _unkept(delta: Any) -> None:
    """Log a delta nothing is kept of: a warning (its type only) when the SDK does not know it."""
    if isinstance(delta, gi.UnknownStepDeltaData):
        raw: Any = getattr(delta, "raw", None)
        kind = raw.get("type") if isinstance(raw, dict) else None
        logger.warning(
            "Interactions stream: an unrecognized step delta type %r was dropped (a newer "
            "API than this google-genai knows).",
            kind,
        )
    else:
        logger.debug("Interactions stream: an unhandled step delta type %r, dropped.", delta.type)


def _delta_part(delta: Any) -> types.Part | None:
    if isinstance(delta, gi.ImageDelta | gi.AudioDelta | gi.VideoDelta | gi.DocumentDelta):
        return _media_part(delta)
    if isinstance(delta, gi.CodeExecutionCallDelta):
        if delta.arguments is None or not delta.arguments.code:
            return None
        return _code_part(delta.arguments)
    if isinstance(delta, gi.CodeExecutionResultDelta):
        return _code_result_part(delta.result, delta.is_error)
    if isinstance(delta, gi.FunctionResultDelta):  # the delta names no call (SDK 2.34)
        return _result_part(getattr(delta, "call_id", None), delta.name, delta.result)
    return None


def _stop(event: gi.StepStop, state: StreamState, interaction_id: str | None) -> LlmResponse | None:
    """A step stops: a function call's streamed arguments are parsed (None: they were fine)."""
    part = state.calls.pop(event.index, None)
    return None if part is None else _finish_call(part, interaction_id)


def _finish_call(part: types.Part, interaction_id: str | None) -> LlmResponse | None:
    """Set a streamed call's ``args`` from its ``partial_args``; an error if not an object."""
    call = part.function_call
    assert call is not None
    text = "".join(piece.string_value or "" for piece in call.partial_args or [])
    call.partial_args = None
    if not text:
        call.args = call.args or {}
        return None
    try:
        arguments = json.loads(text)
    except json.JSONDecodeError:
        arguments = None
    if isinstance(arguments, dict):
        call.args = arguments
        return None
    call.args = {}
    logger.error(
        "The streamed arguments of function call %r are not a JSON object (%d characters).",
        call.name,
        len(text),
    )
    return LlmResponse(
        error_code="JSON_PARSE_ERROR",
        error_message=f"The model streamed arguments for {call.name!r} that are not a JSON object.",
        finish_reason=types.FinishReason.MALFORMED_FUNCTION_CALL,
        turn_complete=True,
        interaction_id=interaction_id,
    )


def _completed(
    event: gi.InteractionCompletedEvent, state: StreamState, interaction_id: str | None
) -> LlmResponse:
    for index in list(state.calls):  # a call whose step never said it stopped
        failed = _finish_call(state.calls.pop(index), interaction_id)
        if failed is not None:
            return failed
    interaction = event.interaction
    failed = _status_error(interaction)
    if failed is not None:
        return failed
    grounding = state.grounding.metadata()
    if not state.parts and grounding is None:  # nothing streamed: the interaction says it all
        response = convert_interaction_to_llm_response(interaction)
        response.usage_metadata = response.usage_metadata or _usage(state.total_usage)
        return response
    return LlmResponse(
        content=types.Content(role="model", parts=state.parts) if state.parts else None,
        grounding_metadata=grounding,
        usage_metadata=_usage(interaction.usage or state.total_usage),
        partial=False,
        turn_complete=True,
        finish_reason=types.FinishReason.STOP,
        interaction_id=interaction.id or interaction_id,
        model_version=interaction.model,
    )


def convert_interaction_event_to_llm_response(
    event: Any, state: StreamState, interaction_id: str | None = None
) -> LlmResponse | None:
    """The response one streamed event makes, if any.

    Text, thought summaries, media, code execution and function results are each sent on as
    a partial response and kept in ``state``; a function call's arguments are gathered until
    its step stops; ``interaction.completed`` gives the complete reply (all kept parts, the
    grounding, the usage). A failed status update or an error event is an error response,
    as are arguments that are not a JSON object.
    """
    if isinstance(event, gi.StepStart):
        return _start(event, state, interaction_id)
    elif isinstance(event, gi.StepDelta):
        return _delta(event, state, interaction_id)
    elif isinstance(event, gi.StepStop):
        return _stop(event, state, interaction_id)
    elif isinstance(event, gi.InteractionCompletedEvent):
        return _completed(event, state, interaction_id)
    elif isinstance(event, gi.InteractionStatusUpdate):
        if event.status == "failed":
            return error_response(None, None, event.interaction_id or interaction_id)
    elif isinstance(event, gi.ErrorEvent):
        error = event.error
        code = None if error is None or error.code is None else str(error.code)
        return error_response(code, None if error is None else error.message, interaction_id)
    elif isinstance(event, gi.Interaction):
        return convert_interaction_to_llm_response(event)
    return None


def event_interaction(event: Any) -> tuple[str | None, str | None]:
    """The interaction id and environment id an SSE event names, if it names them."""
    if isinstance(event, gi.InteractionStatusUpdate):
        return event.interaction_id, None
    interaction: Any = None
    if isinstance(event, gi.InteractionCreatedEvent | gi.InteractionCompletedEvent):
        interaction = event.interaction
    elif isinstance(event, gi.Interaction):
        interaction = event
    if interaction is None:
        return None, None
    environment = getattr(interaction, "environment_id", None)
    return interaction.id, environment if isinstance(environment, str) else None
