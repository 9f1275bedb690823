"""LlmResponse: one reply (or one streamed chunk) of a model."""

from __future__ import annotations

import logging
from typing import Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, alias_generators

from adk_runtime.events._cache_metadata import CacheMetadata
from adk_runtime.events._parts import function_calls, function_responses

__all__ = ["LlmResponse"]

logger = logging.getLogger(__name__)


class LlmResponse(BaseModel):
    """A model's reply, with google-adk's field names.

    The flow turns each response into an :class:`~adk_runtime.events.Event` with the same
    fields, so what a response carries is stored with its event on every backend.

    Attributes:
        content: What the model said (text, function calls, ...).
        partial: A streamed chunk; the aggregated reply follows as a non-partial response.
        turn_complete: The model finished its turn (streaming).
        error_code: Set when the call failed (e.g. the HTTP status, the finish reason or the
            reason the prompt was blocked).
        error_message: What went wrong, for people.
        finish_reason: Why the model stopped.
        usage_metadata: Token counts.
        model_version: The model that answered.
        avg_logprobs: The average log probability of the answer's tokens.
        logprobs_result: The log probabilities of the chosen tokens and of the top
            candidates at each step (when the request asked for them).
        input_transcription: What the user said, transcribed (audio models).
        output_transcription: What the model said, transcribed (audio models).
        cache_metadata: The context cache the request used, or the fingerprint of its
            cacheable prefix (set by the model when the app caches context).
        interaction_id: The Gemini Interactions API interaction this reply belongs to
            (``Gemini(use_interactions_api=True)``); the agent's next request continues it.
        environment_id: The Interactions API execution environment the interaction used,
            when the API names one.
    """

    model_config = ConfigDict(
        extra="forbid",
        alias_generator=alias_generators.to_camel,
        populate_by_name=True,
        arbitrary_types_allowed=True,
    )

    model_version: str | None = None
    content: types.Content | None = None
    grounding_metadata: types.GroundingMetadata | None = None
    citation_metadata: types.CitationMetadata | None = None
    partial: bool | None = None
    turn_complete: bool | None = None
    finish_reason: types.FinishReason | None = None
    error_code: str | None = None
    error_message: str | None = None
    interrupted: bool | None = None
    custom_metadata: dict[str, Any] | None = None
    usage_metadata: types.GenerateContentResponseUsageMetadata | None = None
    input_transcription: types.Transcription | None = None
    output_transcription: types.Transcription | None = None
    avg_logprobs: float | None = None
    logprobs_result: types.LogprobsResult | None = None
    cache_metadata: CacheMetadata | None = None
    interaction_id: str | None = None
    environment_id: str | None = None

    def get_function_calls(self) -> list[types.FunctionCall]:
        """Return the function calls in this response's content, in order."""
        return function_calls(self.content)

    def get_function_responses(self) -> list[types.FunctionResponse]:
        """Return the function responses in this response's content, in order."""
        return function_responses(self.content)

    @staticmethod
    def create(generate_content_response: types.GenerateContentResponse) -> LlmResponse:
        """Build a response from a google-genai ``GenerateContentResponse`` (its first candidate).

        As in google-adk:

        - a candidate with parts, or one that finished with ``STOP`` (even without parts), is
          a reply; saying that an empty turn is an error is the flow's job, since a streamed
          reply may end with such a chunk;
        - a candidate without parts that stopped for another reason is an error whose
          ``error_code`` is the finish reason and ``error_message`` the finish message;
        - no candidate and a blocked prompt is an error with the block reason and message;
        - no candidate and no feedback is an empty reply (some turns legitimately say nothing).

        The candidate's citations and log probabilities are kept in every case.
        """
        response = generate_content_response
        usage = response.usage_metadata
        if not response.candidates:
            feedback = response.prompt_feedback
            if feedback is not None:
                return LlmResponse(
                    error_code=feedback.block_reason,
                    error_message=feedback.block_reason_message,
                    usage_metadata=usage,
                    model_version=response.model_version,
                )
            logger.warning("The model response has no candidate and no prompt feedback.")
            return LlmResponse(
                content=types.Content(role="model", parts=[]),
                usage_metadata=usage,
                model_version=response.model_version,
            )
        candidate = response.candidates[0]
        kept: dict[str, Any] = {
            "citation_metadata": candidate.citation_metadata,
            "finish_reason": candidate.finish_reason,
            "avg_logprobs": candidate.avg_logprobs,
            "logprobs_result": candidate.logprobs_result,
            "usage_metadata": usage,
            "model_version": response.model_version,
        }
        replied = bool(candidate.content and candidate.content.parts)
        if replied or candidate.finish_reason == types.FinishReason.STOP:
            return LlmResponse(
                content=candidate.content, grounding_metadata=candidate.grounding_metadata, **kept
            )
        return LlmResponse(
            error_code=candidate.finish_reason, error_message=candidate.finish_message, **kept
        )
