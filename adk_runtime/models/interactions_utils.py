"""``google.adk.models.interactions_utils`` → here: Gemini through the Interactions API.

``Gemini(use_interactions_api=True)`` sends its requests to ``interactions.create`` instead
of ``generate_content``. The API keeps the conversation: a request names the previous
interaction (``LlmRequest.previous_interaction_id``, found by the agent's flow in the
session's stored events) and sends only what is new since (the current turn's user
contents, the function results the model asked for). The interaction id comes back on every
response and is stored on the agent's events (``Event.interaction_id``), so the chain
survives a restart or another replica taking the next turn.

This module converts between google-genai's ``types`` (what the runtime speaks) and the
Interactions API's steps, events and parameters, and drives one call, streaming or not
(:func:`generate_content_via_interactions`). Requests and replies are logged as summaries:
kinds and sizes, never the text, data or arguments they carry.
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import logging
import warnings
from collections.abc import AsyncGenerator, Mapping
from typing import TYPE_CHECKING, Any

from google.genai import interactions as gi
from google.genai import types

from adk_runtime.models._service_tier import ServiceTier
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse

if TYPE_CHECKING:
    import google.genai as genai

__all__ = [
    "StreamState",
    "build_generation_config",
    "build_interactions_event_log",
    "build_interactions_request_log",
    "build_interactions_response_log",
    "contents_to_steps",
    "convert_interaction_event_to_llm_response",
    "convert_interaction_to_llm_response",
    "convert_part_to_interaction_content",
    "convert_tools_config_to_interactions_format",
    "create_arguments",
    "extract_system_instruction",
    "generate_content_via_interactions",
    "latest_turn",
    "part_to_step",
    "stream_interaction",
]

logger = logging.getLogger(__name__)

PENDING_STATUSES = frozenset({"queued", "in_progress"})
"""Statuses of an interaction still running (a deferred call comes back ``queued``)."""
FINISHED_TURN_STATUSES = frozenset({"completed", "requires_action"})
"""Statuses of a model turn that ended (``requires_action``: it waits for function results)."""

POLL_INITIAL_DELAY_SECONDS = 5.0
POLL_MAX_DELAY_SECONDS = 30.0
POLL_MAX_CONSECUTIVE_ERRORS = 5

_MEDIA_KINDS = ("image", "audio", "video")
_SAMPLING_CARRIED = ("temperature", "top_p")
_SAMPLING_DROPPED = ("top_k", "presence_penalty", "frequency_penalty")
_warned_dropped: set[str] = set()


# --- requests: genai types -> Interactions API parameters ------------------------------------


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _media_kind(mime_type: str) -> str:
    kind = mime_type.partition("/")[0]
    return kind if kind in _MEDIA_KINDS else "document"


def _media_content(part: types.Part) -> dict[str, Any] | None:
    if part.inline_data is not None:
        blob = part.inline_data
        mime_type = blob.mime_type or ""
        content: dict[str, Any] = {"type": _media_kind(mime_type), "mime_type": mime_type}
        if blob.data is not None:
            content["data"] = _b64(blob.data)
        return content
    if part.file_data is not None:
        file = part.file_data
        mime_type = file.mime_type or ""
        content = {"type": _media_kind(mime_type), "mime_type": mime_type}
        if file.file_uri is not None:
            content["uri"] = file.file_uri
        return content
    return None


def _code_arguments(code: types.ExecutableCode) -> dict[str, Any]:
    arguments: dict[str, Any] = {}
    if code.code is not None:
        arguments["code"] = code.code
    if code.language == types.Language.PYTHON:
        arguments["language"] = "python"  # the API takes lower-case language names
    return arguments


def _failed(outcome: types.Outcome | None) -> bool:
    return outcome in (types.Outcome.OUTCOME_FAILED, types.Outcome.OUTCOME_DEADLINE_EXCEEDED)


def _function_result(response: types.FunctionResponse) -> dict[str, Any]:
    result: Any = response.response if response.response is not None else {}
    return {
        "type": "function_result",
        "name": response.name or "",
        "call_id": response.id or "",
        "result": result,
        # google-genai's convention: a failed call answers {"error": ...}.
        "is_error": isinstance(result, dict) and "error" in result,
    }


def part_to_step(part: types.Part, role: str = "user") -> dict[str, Any] | None:
    """The Interactions API step for one part of a ``role`` content (None: nothing to send).

    Text and media become a ``user_input`` or ``model_output`` step by the role; calls,
    results, thoughts and code execution are steps of their own kind.
    """
    if part.function_call is not None:
        call = part.function_call
        return {
            "type": "function_call",
            "id": call.id or "",
            "name": call.name or "",
            "arguments": dict(call.args or {}),
        }
    if part.function_response is not None:
        return _function_result(part.function_response)
    if part.thought:
        # A thought goes back only for its signature (Gemini 3 needs it echoed).
        if part.thought_signature is None:
            return None
        return {"type": "thought", "signature": _b64(part.thought_signature)}
    if part.executable_code is not None:
        arguments = _code_arguments(part.executable_code)
        return {"type": "code_execution_call", "id": "", "arguments": arguments}
    if part.code_execution_result is not None:
        result = part.code_execution_result
        return {
            "type": "code_execution_result",
            "call_id": "",
            "result": result.output or "",
            "is_error": _failed(result.outcome),
        }
    text = None if part.text is None else {"type": "text", "text": part.text}
    content = text or _media_content(part)
    if content is None:
        return None
    kind = "model_output" if role == "model" else "user_input"
    return {"type": kind, "content": [content]}


def contents_to_steps(contents: list[types.Content]) -> list[dict[str, Any]]:
    """The input steps for ``contents``, part by part, in order."""
    steps: list[dict[str, Any]] = []
    for content in contents:
        for part in content.parts or []:
            step = part_to_step(part, content.role or "user")
            if step is not None:
                steps.append(step)
    return steps


def convert_part_to_interaction_content(part: types.Part) -> dict[str, Any] | None:
    """The flat interaction content of ``part`` (google-adk's older form; deprecated).

    Prefer the step form the requests use (:func:`part_to_step`).
    """
    warnings.warn(
        "convert_part_to_interaction_content is deprecated: requests are sent as steps",
        DeprecationWarning,
        stacklevel=2,
    )
    step = part_to_step(part)
    if step is None:
        return None
    if step["type"] in ("user_input", "model_output"):
        return dict(step["content"][0])
    if step["type"] == "function_result":
        return {key: value for key, value in step.items() if key != "is_error"}
    if step["type"] == "thought" and part.text is not None:
        return {"type": "text", "text": part.text}
    return step


def _function_tool(declaration: types.FunctionDeclaration) -> dict[str, Any]:
    tool: dict[str, Any] = {"type": "function"}
    if declaration.name is not None:
        tool["name"] = declaration.name
    if declaration.description:
        tool["description"] = declaration.description
    if declaration.parameters_json_schema is not None:
        tool["parameters"] = declaration.parameters_json_schema
    elif declaration.parameters is not None and declaration.parameters.properties:
        schema = declaration.parameters.json_schema
        tool["parameters"] = schema.model_dump(mode="json", exclude_none=True, by_alias=True)
    return tool


_BUILT_IN_TOOLS = ("google_search", "code_execution", "url_context", "computer_use")


def convert_tools_config_to_interactions_format(
    config: types.GenerateContentConfig,
) -> list[dict[str, Any]]:
    """The Interactions API tools for the request's tools.

    Each function declaration is a ``function`` tool (its parameters as JSON Schema); Google
    Search, code execution, URL context and computer use are built-in tools by type. Tools
    of other kinds (callables not yet declared, retrieval) are not sent.
    """
    tools: list[dict[str, Any]] = []
    for tool in config.tools or []:
        if not isinstance(tool, types.Tool):
            continue
        tools.extend(_function_tool(d) for d in tool.function_declarations or [])
        tools.extend({"type": name} for name in _BUILT_IN_TOOLS if getattr(tool, name))
    return tools


def _warn_dropped(config: types.GenerateContentConfig) -> None:
    dropped = [
        name
        for name in _SAMPLING_DROPPED
        if getattr(config, name) is not None and name not in _warned_dropped
    ]
    if dropped:
        _warned_dropped.update(dropped)
        logger.warning(
            "The Interactions API has no field for %s: the model samples with its defaults. "
            "Unset them, or use Gemini without use_interactions_api to have them applied.",
            ", ".join(dropped),
        )


def build_generation_config(config: types.GenerateContentConfig) -> dict[str, Any]:
    """The Interactions API ``generation_config`` for ``config``.

    Carried: ``max_output_tokens``, ``stop_sequences``, ``seed``, ``temperature``,
    ``top_p`` and the thinking level (``thinking_config.include_thoughts`` asks for thought
    summaries). ``top_k`` and the penalties have no field there: setting them logs a warning
    once per process.
    """
    generation: dict[str, Any] = {}
    if config.max_output_tokens is not None:
        generation["max_output_tokens"] = config.max_output_tokens
    if config.stop_sequences:
        generation["stop_sequences"] = list(config.stop_sequences)
    if config.seed is not None:
        generation["seed"] = config.seed
    for name in _SAMPLING_CARRIED:
        value = getattr(config, name)
        if value is not None:
            generation[name] = value
    thinking = config.thinking_config
    if thinking is not None:
        level = thinking.thinking_level
        if level is not None and level != types.ThinkingLevel.THINKING_LEVEL_UNSPECIFIED:
            generation["thinking_level"] = level.value.lower()
        if thinking.include_thoughts is not None:
            generation["thinking_summaries"] = "auto" if thinking.include_thoughts else "none"
    _warn_dropped(config)
    return generation


def extract_system_instruction(config: types.GenerateContentConfig) -> str | None:
    """The system instruction as one string (the texts of its parts, one per line)."""
    instruction = config.system_instruction
    if instruction is None:
        return None
    if isinstance(instruction, str):
        return instruction
    if isinstance(instruction, types.Content):
        texts = [part.text for part in instruction.parts or [] if part.text]
        return "\n".join(texts) or None
    if isinstance(instruction, types.Part):
        return instruction.text or None
    return None


def _response_format(config: types.GenerateContentConfig) -> dict[str, Any]:
    """``response_format`` and ``response_mime_type`` for a structured-output request."""
    schema: Any = config.response_json_schema
    if schema is None and isinstance(config.response_schema, types.Schema):
        schema = config.response_schema.json_schema.model_dump(
            mode="json", exclude_none=True, by_alias=True
        )
    if schema is None:
        return {}
    return {
        "response_format": schema,
        "response_mime_type": config.response_mime_type or "application/json",
    }


def latest_turn(contents: list[types.Content]) -> list[types.Content]:
    """What a chained request sends: the trailing user contents.

    The interaction named by ``previous_interaction_id`` holds everything before them. The
    thought signatures of the model turn just before go along (Gemini wants them back).
    """
    end = len(contents)
    start = end
    while start > 0 and contents[start - 1].role == "user":
        start -= 1
    latest = list(contents[start:end])
    if start > 0:
        signed = [part for part in contents[start - 1].parts or [] if part.thought_signature]
        if signed:
            latest.insert(0, types.Content(role="model", parts=signed))
    return latest


# --- replies: Interactions API -> LlmResponse ------------------------------------------------


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
            elif getattr(content, "type", None) in (*_MEDIA_KINDS, "document"):
                part = _media_part(content)
                if part is not None:
                    parts.append(part)
        return parts
    if isinstance(step, gi.FunctionCallStep):
        call = types.FunctionCall(id=step.id, name=step.name, args=dict(step.arguments or {}))
        return [types.Part(function_call=call)]
    if isinstance(step, gi.FunctionResultStep):
        response = types.FunctionResponse(
            id=step.call_id or "", name=step.name, response=_result_response(step.result)
        )
        return [types.Part(function_response=response)]
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
        code = types.ExecutableCode(code=step.arguments.code, language=_language(step.arguments))
        return [types.Part(executable_code=code)]
    if isinstance(step, gi.CodeExecutionResultStep):
        outcome = types.Outcome.OUTCOME_FAILED if step.is_error else types.Outcome.OUTCOME_OK
        result = types.CodeExecutionResult(output=step.result or "", outcome=outcome)
        return [types.Part(code_execution_result=result)]
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


def _error(code: str | None, message: str | None, interaction_id: str | None) -> LlmResponse:
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
        return _error(
            None if code is None else str(code),
            getattr(error, "message", None),
            interaction.id,
        )
    if status in _UNFINISHED:
        return _error(str(status).upper(), _UNFINISHED[status], interaction.id)
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


_StreamState = StreamState  # google-adk's name, which its callers build


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
        code = types.ExecutableCode(code=delta.arguments.code, language=_language(delta.arguments))
        return types.Part(executable_code=code)
    if isinstance(delta, gi.CodeExecutionResultDelta):
        outcome = types.Outcome.OUTCOME_FAILED if delta.is_error else types.Outcome.OUTCOME_OK
        result = types.CodeExecutionResult(output=delta.result or "", outcome=outcome)
        return types.Part(code_execution_result=result)
    if isinstance(delta, gi.FunctionResultDelta):
        response = types.FunctionResponse(
            id=getattr(delta, "call_id", None) or "",
            name=delta.name,
            response=_result_response(delta.result),
        )
        return types.Part(function_response=response)
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
            return _error(None, None, event.interaction_id or interaction_id)
    elif isinstance(event, gi.ErrorEvent):
        error = event.error
        code = None if error is None or error.code is None else str(error.code)
        return _error(code, None if error is None else error.message, interaction_id)
    elif isinstance(event, gi.Interaction):
        return convert_interaction_to_llm_response(event)
    return None


def _event_interaction(event: Any) -> tuple[str | None, str | None]:
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


# --- logs: summaries, never payloads ----------------------------------------------------------


def _step_summary(step: Mapping[str, Any]) -> str:
    kind = str(step.get("type"))
    if kind in ("user_input", "model_output"):
        inner = [str(c.get("type")) for c in step.get("content") or []]
        return f"{kind}({', '.join(inner)})"
    if kind in ("function_call", "function_result"):
        return f"{kind}({step.get('name')})"
    return kind


def build_interactions_request_log(
    model: str,
    input_steps: list[dict[str, Any]],
    system_instruction: str | None = None,
    tools: list[dict[str, Any]] | None = None,
    generation_config: Mapping[str, Any] | None = None,
    previous_interaction_id: str | None = None,
    stream: bool = False,
) -> str:
    """A one-line summary of an Interactions API request (no texts, data or arguments)."""
    tool_names = [str(tool.get("name") or tool.get("type")) for tool in tools or []]
    return (
        f"Interactions request: model={model} stream={stream} "
        f"previous_interaction_id={previous_interaction_id} "
        f"input=[{', '.join(_step_summary(step) for step in input_steps)}] "
        f"system_instruction={len(system_instruction or '')} chars "
        f"tools=[{', '.join(tool_names)}] "
        f"generation_config=[{', '.join(sorted(generation_config or {}))}]"
    )


def build_interactions_response_log(interaction: Any) -> str:
    """A one-line summary of an interaction: id, status, its steps' kinds, usage."""
    kinds = [str(getattr(step, "type", type(step).__name__)) for step in interaction.steps or []]
    usage = interaction.usage
    tokens = None if usage is None else usage.total_tokens
    return (
        f"Interactions response: id={interaction.id} status={interaction.status} "
        f"steps=[{', '.join(kinds)}] total_tokens={tokens}"
    )


def build_interactions_event_log(event: Any) -> str:
    """A one-line summary of a streamed event: its type, step index and delta kind."""
    kind = getattr(event, "event_type", type(event).__name__)
    details: list[str] = []
    if (index := getattr(event, "index", None)) is not None:
        details.append(f"index={index}")
    if isinstance(event, gi.StepDelta):
        details.append(f"delta={getattr(event.delta, 'type', '?')}")
    if isinstance(event, gi.StepStart):
        details.append(f"step={getattr(event.step, 'type', '?')}")
    interaction_id, _ = _event_interaction(event)
    if interaction_id:
        details.append(f"interaction={interaction_id}")
    if isinstance(event, gi.InteractionStatusUpdate):
        details.append(f"status={event.status}")
    if isinstance(event, gi.ErrorEvent) and event.error is not None:
        details.append(f"error={event.error.code}")
    return f"Interactions event: {kind} {' '.join(details)}".rstrip()


# --- one call ---------------------------------------------------------------------------------


async def _poll(client: genai.Client, interaction: Any, headers: dict[str, str] | None) -> Any:
    """Read a pending interaction until it leaves ``queued`` / ``in_progress``.

    The API bounds how long an interaction may run; cancelling the calling task stops the
    wait. A read that fails is retried, up to ``POLL_MAX_CONSECUTIVE_ERRORS`` in a row.
    """
    delay = POLL_INITIAL_DELAY_SECONDS
    failures = 0
    logger.info("Interaction %s is %s; polling it.", interaction.id, interaction.status)
    while interaction.status in PENDING_STATUSES:
        if not interaction.id:
            raise ValueError(f"The interaction is {interaction.status} but has no id to poll.")
        await asyncio.sleep(delay)
        delay = min(delay * 2, POLL_MAX_DELAY_SECONDS)
        try:
            interaction = await client.aio.interactions.get(
                interaction.id, stream=False, extra_headers=headers
            )
        except Exception as exc:
            failures += 1
            if failures >= POLL_MAX_CONSECUTIVE_ERRORS:
                raise
            logger.warning(
                "Reading interaction %s failed (%d in a row): %s",
                interaction.id,
                failures,
                type(exc).__name__,
            )
            continue
        failures = 0
    return interaction


def _request_headers(request: LlmRequest) -> dict[str, str] | None:
    options = request.config.http_options
    if options is None or not options.headers:
        return None
    return dict(options.headers)


def create_arguments(
    request: LlmRequest, *, stream: bool, service_tier: ServiceTier | str | None
) -> dict[str, Any]:
    """The arguments of ``interactions.create`` for ``request`` (all but streaming).

    Raises:
        ValueError: A deferred tier with streaming: a deferred call returns before the
            model answers, so there is nothing to stream.
    """
    tier = service_tier.value if isinstance(service_tier, ServiceTier) else service_tier
    if tier == ServiceTier.DEFERRED.value and stream:
        raise ValueError(
            "service_tier='deferred' cannot stream: a deferred interaction is queued and "
            "answered later. Use StreamingMode.NONE for deferred runs."
        )
    contents = request.contents
    if request.previous_interaction_id:
        contents = latest_turn(contents)
    config = request.config
    arguments: dict[str, Any] = {"model": request.model, "input": contents_to_steps(contents)}
    optional: dict[str, Any] = {
        "system_instruction": extract_system_instruction(config),
        "tools": convert_tools_config_to_interactions_format(config) or None,
        "generation_config": build_generation_config(config) or None,
        "previous_interaction_id": request.previous_interaction_id,
        "service_tier": tier,
        **_response_format(config),
    }
    arguments.update({key: value for key, value in optional.items() if value is not None})
    if tier == ServiceTier.DEFERRED.value:
        arguments["background"] = True  # the API takes a deferred call only in the background
    return arguments


async def generate_content_via_interactions(
    api_client: genai.Client,
    llm_request: LlmRequest,
    stream: bool,
    *,
    service_tier: ServiceTier | str | None = None,
) -> AsyncGenerator[LlmResponse, None]:
    """Send ``llm_request`` through ``interactions.create``; yield the responses.

    With ``previous_interaction_id`` set only the trailing user contents are sent (see
    :func:`latest_turn`). Every response carries the interaction's id. Not streaming, a
    call still pending (a deferred tier) is polled until it ends.

    Raises:
        ValueError: ``service_tier`` deferred with ``stream``.
    """
    arguments = create_arguments(llm_request, stream=stream, service_tier=service_tier)
    headers = _request_headers(llm_request)
    logger.debug(
        build_interactions_request_log(
            model=str(arguments["model"]),
            input_steps=arguments["input"],
            system_instruction=arguments.get("system_instruction"),
            tools=arguments.get("tools"),
            generation_config=arguments.get("generation_config"),
            previous_interaction_id=llm_request.previous_interaction_id,
            stream=stream,
        )
    )
    if not stream:
        interaction: Any = await api_client.aio.interactions.create(
            **arguments, stream=False, extra_headers=headers
        )
        if interaction.status in PENDING_STATUSES:
            interaction = await _poll(api_client, interaction, headers)
        logger.debug(build_interactions_response_log(interaction))
        reply = convert_interaction_to_llm_response(interaction)
        reply.environment_id = getattr(interaction, "environment_id", None)
        yield reply
        return
    async for response in stream_interaction(api_client, arguments, headers):
        yield response


async def stream_interaction(
    api_client: genai.Client, arguments: dict[str, Any], headers: dict[str, str] | None = None
) -> AsyncGenerator[LlmResponse, None]:
    """Call ``interactions.create(**arguments)`` streaming; yield the responses.

    Each carries the interaction's id (and environment id, when the API names one). A
    stream that ends before the interaction completes ends with an error response
    (``STREAM_ENDED``).
    """
    events: Any = await api_client.aio.interactions.create(
        **arguments, stream=True, extra_headers=headers
    )
    state = StreamState()
    interaction_id: str | None = None
    environment_id: str | None = None
    ended = False
    async for event in events:
        logger.debug(build_interactions_event_log(event))
        named, environment = _event_interaction(event)
        interaction_id = named or interaction_id
        environment_id = environment or environment_id
        response = convert_interaction_event_to_llm_response(event, state, interaction_id)
        if response is None:
            continue
        response.environment_id = environment_id
        ended = ended or not response.partial
        yield response
    if not ended:
        yield _error(
            "STREAM_ENDED",
            "The interaction's stream ended before the interaction completed.",
            interaction_id,
        )
