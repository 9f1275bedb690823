"""LlmResponse: one reply (or one streamed chunk) of a model."""

from __future__ import annotations

from typing import Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, alias_generators

from adk_runtime.events._cache_metadata import CacheMetadata

__all__ = ["LlmResponse"]


class LlmResponse(BaseModel):
    """A model's reply, with google-adk's field names.

    Attributes:
        content: What the model said (text, function calls, ...).
        partial: A streamed chunk; the aggregated reply follows as a non-partial response.
        turn_complete: The model finished its turn (streaming).
        error_code: Set when the call failed (e.g. the HTTP status or the finish reason).
        error_message: What went wrong, for people.
        finish_reason: Why the model stopped.
        usage_metadata: Token counts.
        model_version: The model that answered.
        cache_metadata: The context cache the request used, or the fingerprint of its
            cacheable prefix (set by the model when the app caches context).
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
    avg_logprobs: float | None = None
    cache_metadata: CacheMetadata | None = None

    @staticmethod
    def create(response: types.GenerateContentResponse) -> LlmResponse:
        """Build a response from a google-genai ``GenerateContentResponse``.

        A reply without content says why in ``error_code`` / ``error_message`` (the block
        reason or the finish reason), as google-adk does.
        """
        usage = response.usage_metadata
        if not response.candidates:
            feedback = response.prompt_feedback
            return LlmResponse(
                error_code=str(feedback.block_reason)
                if feedback and feedback.block_reason
                else "UNKNOWN_ERROR",
                error_message=(feedback.block_reason_message if feedback else None)
                or "The model returned no candidate.",
                usage_metadata=usage,
            )
        candidate = response.candidates[0]
        if candidate.content and candidate.content.parts:
            return LlmResponse(
                content=candidate.content,
                grounding_metadata=candidate.grounding_metadata,
                citation_metadata=candidate.citation_metadata,
                finish_reason=candidate.finish_reason,
                avg_logprobs=candidate.avg_logprobs,
                usage_metadata=usage,
                model_version=response.model_version,
            )
        reason = candidate.finish_reason
        return LlmResponse(
            error_code=reason.value if reason is not None else "UNKNOWN_ERROR",
            error_message=candidate.finish_message or "The model returned no content.",
            finish_reason=reason,
            usage_metadata=usage,
            model_version=response.model_version,
        )
