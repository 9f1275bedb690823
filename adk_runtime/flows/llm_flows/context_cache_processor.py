"""``google.adk.flows.llm_flows.context_cache_processor`` → here.

adk_runtime's flow has no processor pipeline: the agent prepares every request itself
(``adk_runtime.agents._context_cache``). The processor is kept for code that runs it by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.agents import _context_cache
from adk_runtime.flows.llm_flows._base_llm_processor import _Filler

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["ContextCacheRequestProcessor", "request_processor"]


class ContextCacheRequestProcessor(_Filler):
    """Gives a request the app's cache settings and the agent's last cache metadata."""

    name = "context_cache"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        """Fill ``llm_request``'s caching fields for the context's agent.

        Sets ``cache_config`` (the app's ``context_cache_config``), ``cache_metadata`` and
        ``cacheable_contents_token_count`` (from the agent's latest events); does nothing
        when the app does not cache.
        """
        _context_cache.prepare_request(
            invocation_context, invocation_context.agent.name, llm_request
        )


request_processor = ContextCacheRequestProcessor()
