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
import logging
from collections.abc import AsyncGenerator, Mapping
from typing import TYPE_CHECKING, Any

from google.genai import interactions as gi

from adk_runtime.models._interactions_reply import (
    StreamState,
    convert_interaction_event_to_llm_response,
    convert_interaction_to_llm_response,
    error_response,
    event_interaction,
)
from adk_runtime.models._interactions_request import (
    build_generation_config,
    contents_to_steps,
    convert_part_to_interaction_content,
    convert_tools_config_to_interactions_format,
    create_arguments,
    extract_system_instruction,
    latest_turn,
    part_to_step,
)
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

_StreamState = StreamState  # google-adk's name, which its callers build

PENDING_STATUSES = frozenset({"queued", "in_progress"})
"""Statuses of an interaction still running (a deferred call comes back ``queued``)."""

POLL_INITIAL_DELAY_SECONDS = 5.0
POLL_MAX_DELAY_SECONDS = 30.0
POLL_MAX_CONSECUTIVE_ERRORS = 5


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
    interaction_id, _ = event_interaction(event)
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
        named, environment = event_interaction(event)
        interaction_id = named or interaction_id
        environment_id = environment or environment_id
        response = convert_interaction_event_to_llm_response(event, state, interaction_id)
        if response is None:
            continue
        response.environment_id = environment_id
        ended = ended or not response.partial
        yield response
    if not ended:
        yield error_response(
            "STREAM_ENDED",
            "The interaction's stream ended before the interaction completed.",
            interaction_id,
        )
