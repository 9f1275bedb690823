"""``google.adk.flows.llm_flows.compaction`` → here: the compaction step of a request.

When the app's ``EventsCompactionConfig`` has a ``token_threshold`` and the history
outgrew it, the step yields a compaction event (the summary of the older events) before
the contents are built; the Runner commits it like any event, so the contents step shows
the summary in place of the events it covers. google-adk's step writes the summary to the
session service itself and yields nothing; here every event, the summary included, is
committed by the Runner under its claim before the agent goes on.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from adk_runtime.agents import _llm_flow
from adk_runtime.flows.llm_flows._base_llm_processor import BaseLlmRequestProcessor, llm_agent_of

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.events import Event
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["CompactionRequestProcessor", "request_processor"]


class CompactionRequestProcessor(BaseLlmRequestProcessor):
    """Summarises older events first when the history outgrew the app's token threshold."""

    name = "compaction"

    async def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Yield the compaction event, when one is due (the Runner commits it)."""
        del llm_request  # the contents step, later, shows the summary
        agent = llm_agent_of(invocation_context)
        summary = await _llm_flow.summary_due(agent, invocation_context)
        if summary is not None:
            yield summary


request_processor = CompactionRequestProcessor()
