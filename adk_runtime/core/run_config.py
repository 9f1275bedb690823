"""RunConfig: per-invocation settings."""

from __future__ import annotations

import enum
import logging
import os
import sys
from typing import Any

from google.genai import types
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from adk_runtime.core._model_config import check_http_options
from adk_runtime.events._internal_metadata import without_internal_metadata
from adk_runtime.models._service_tier import ServiceTier
from adk_runtime.sessions.base import GetSessionConfig

__all__ = ["DEFAULT_MAX_LLM_CALLS", "RunConfig", "StreamingMode", "ToolThreadPoolConfig"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_LLM_CALLS = 500
MAX_LLM_CALLS_ENV = "ADK_MAX_LLM_CALLS"


def _default_max_llm_calls() -> int:
    """``ADK_MAX_LLM_CALLS`` from the environment when it is an integer, else 500."""
    value = os.environ.get(MAX_LLM_CALLS_ENV)
    if not value:
        return DEFAULT_MAX_LLM_CALLS
    try:
        return int(value)
    except ValueError:
        logger.warning(
            "Invalid value for %s (not an integer): %r; the default %s applies.",
            MAX_LLM_CALLS_ENV,
            value,
            DEFAULT_MAX_LLM_CALLS,
        )
        return DEFAULT_MAX_LLM_CALLS


class StreamingMode(str, enum.Enum):
    """How model output reaches the caller."""

    NONE = "none"
    SSE = "sse"
    BIDI = "bidi"


class ToolThreadPoolConfig(BaseModel):
    """A pool of threads of their own for sync tools (``RunConfig.tool_thread_pool_config``).

    Sync tools (and sync ``require_confirmation`` predicates) always run off the event loop;
    without this they share asyncio's default executor with everything else that uses it.
    With it, they run on a pool of ``max_workers`` threads, one pool for every invocation on
    the same event loop with the same ``max_workers`` (shut down with the loop), so blocking
    tools are bounded and cannot starve the rest. A thread cannot be stopped: a call that
    outlives its invocation (cancelled, failed) keeps its worker until it returns.

    Attributes:
        max_workers: How many sync tool calls may run at once (at least 1).
    """

    model_config = ConfigDict(extra="forbid")

    max_workers: int = Field(default=4, ge=1)


class RunConfig(BaseModel):
    """Settings for one ``Runner.run_async`` call.

    Attributes:
        streaming_mode: ``SSE`` yields the model's chunks as partial events as they arrive.
        max_llm_calls: Upper bound of model calls in one invocation (<= 0 means no bound;
            ``sys.maxsize`` or more is rejected, as in google-adk). The default is 500, or
            the ``ADK_MAX_LLM_CALLS`` environment variable's value.
        response_modalities: Requested output modalities (``types.Modality``; strings such
            as ``"audio"`` are converted).
        speech_config: Speech settings for audio output.
        save_input_blobs_as_artifacts: Save inline data of the user message as artifacts.
        custom_metadata: Metadata of the invocation, stamped on the user's event and on every
            event the agents yield (an event's own keys win); stored with them. Keys starting
            with ``__adk_internal_`` are the runtime's own and are dropped.
        get_session_config: Which events the Runner loads with the session (default: all).
        http_options: HTTP options of this invocation's model calls (custom headers, a
            timeout, retries, an extra body), merged over the agent's
            ``generate_content_config.http_options``: headers are added, the rest replaces
            (a ``base_url`` is refused, as in ``generate_content_config``).
        labels: Labels of this invocation's model calls (billing, attribution), merged over
            the agent's ``generate_content_config.labels``.
        model_input_context: Contents added to every model request of this invocation, just
            before the user's message; never stored in the session.
        include_thoughts_from_other_agents: Also retell other agents' thought parts when
            their turns are shown to this agent as context (left out by default, and always
            for an agent with ``include_contents="none"``, as in google-adk).
        tool_thread_pool_config: Run sync tools on a pool of their own (see
            :class:`ToolThreadPoolConfig`); None: asyncio's default executor.
        service_tier: The serving tier of this invocation's model calls on Gemini's
            Interactions API (``Gemini(use_interactions_api=True)``; other models ignore it,
            with a warning once per invocation). ``deferred`` cannot be combined with
            ``StreamingMode.SSE`` (refused here).
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    streaming_mode: StreamingMode = StreamingMode.NONE
    max_llm_calls: int = Field(default_factory=_default_max_llm_calls)
    response_modalities: list[types.Modality] | None = None
    speech_config: types.SpeechConfig | None = None
    save_input_blobs_as_artifacts: bool = False
    custom_metadata: dict[str, Any] | None = None
    get_session_config: GetSessionConfig | None = None
    support_cfc: bool = Field(default=False, description="Compositional function calling.")
    http_options: types.HttpOptions | None = None
    labels: dict[str, str] | None = None
    model_input_context: list[types.Content] | None = None
    include_thoughts_from_other_agents: bool = False
    tool_thread_pool_config: ToolThreadPoolConfig | None = None
    service_tier: ServiceTier | str | None = None

    @field_validator("custom_metadata")
    @classmethod
    def _without_internal_keys(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        """Drop the runtime's own keys (``__adk_internal_…``): a caller cannot set them."""
        return without_internal_metadata(value)

    @field_validator("http_options")
    @classmethod
    def _no_base_url(cls, value: types.HttpOptions | None) -> types.HttpOptions | None:
        check_http_options(value, "RunConfig.http_options")
        return value

    @model_validator(mode="after")
    def validate_service_tier_streaming(self) -> RunConfig:
        """Refuse a deferred tier with SSE streaming (google-adk's validator name).

        Raises:
            ValueError: ``service_tier`` is ``deferred`` and ``streaming_mode`` SSE.
        """
        if self.service_tier == ServiceTier.DEFERRED and self.streaming_mode == StreamingMode.SSE:
            raise ValueError(
                "service_tier='deferred' cannot be used with StreamingMode.SSE: a deferred "
                "model call is queued and answered later, so there is nothing to stream."
            )
        return self

    @field_validator("max_llm_calls")
    @classmethod
    def validate_max_llm_calls(cls, value: int) -> int:
        """Check ``max_llm_calls`` (google-adk's validator name); warn when it sets no bound.

        Raises:
            ValueError: ``sys.maxsize`` or more.
        """
        if value >= sys.maxsize:
            raise ValueError(
                f"max_llm_calls should be less than {sys.maxsize}. Use 0 for no bound."
            )
        if value <= 0:
            logger.warning(
                f"max_llm_calls={value}: no bound on model calls; an agent that keeps "
                "calling tools runs (and is billed) until it stops by itself."
            )
        return value
