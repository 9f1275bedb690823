"""Context caching on the agent's side: what the model needs to reuse a cache.

The agent tells the model the app's ``ContextCacheConfig`` and, from the session's committed
events, the cache metadata of its own last model response and that request's prompt token
count (google-adk's context cache request processor). The model decides what to cache
(``adk_runtime.models.gemini_context_cache_manager``); its answer carries the metadata, which
the event stores, so the next invocation finds it wherever it runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from adk_runtime.events import Event
from adk_runtime.events._cache_metadata import CacheMetadata
from adk_runtime.models.llm_request import LlmRequest

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext

__all__ = ["find_cache_info", "prepare_request"]


def prepare_request(ctx: InvocationContext, agent_name: str, request: LlmRequest) -> None:
    """Set the request's ``cache_config``, ``cache_metadata`` and token count (if caching)."""
    config = ctx.context_cache_config
    if config is None:
        return
    request.cache_config = config
    metadata, tokens = find_cache_info(ctx.session.events, agent_name, ctx.invocation_id)
    request.cache_metadata = metadata
    request.cacheable_contents_token_count = tokens


def find_cache_info(
    events: Sequence[Event], agent_name: str, invocation_id: str
) -> tuple[CacheMetadata | None, int | None]:
    """The agent's latest cache metadata and prompt token count, newest events first.

    An active cache found on an event of an earlier invocation counts one more use (this
    invocation); within the same invocation it is returned as it is.
    """
    metadata: CacheMetadata | None = None
    tokens: int | None = None
    for event in reversed(events):
        if event.author != agent_name:
            continue
        if metadata is None and event.cache_metadata is not None:
            metadata = _for_this_invocation(event, event.cache_metadata, invocation_id)
        usage = event.usage_metadata
        if tokens is None and usage is not None and usage.prompt_token_count is not None:
            tokens = usage.prompt_token_count
        if metadata is not None and tokens is not None:
            break
    return metadata, tokens


def _for_this_invocation(
    event: Event, metadata: CacheMetadata, invocation_id: str
) -> CacheMetadata:
    used = metadata.invocations_used
    if metadata.cache_name is None or used is None or event.invocation_id == invocation_id:
        return metadata
    return metadata.model_copy(update={"invocations_used": used + 1})
