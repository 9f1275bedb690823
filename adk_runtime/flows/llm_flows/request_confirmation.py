"""``google.adk.flows.llm_flows.request_confirmation`` → here: resuming confirmed calls.

The step the LLM flow takes before its first model call
(``adk_runtime.agents._confirmation.resume_confirmed_calls``): when the user's latest
message answers ``adk_request_confirmation`` requests of this agent, each answer is checked
against the stored request and the original call, and the calls run again with
``tool_context.tool_confirmation`` set. Yields their function-response event (and a new
request when a tool asks again, which ends the invocation); an answer already acted on runs
nothing again.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING

from adk_runtime.agents import _confirmation
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows._base_llm_processor import (
    BaseLlmRequestProcessor,
    llm_agent_of,
)

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["request_processor"]


class _RequestConfirmationLlmRequestProcessor(BaseLlmRequestProcessor):
    """Runs the calls the user's latest message confirms (or declines)."""

    name = "request_confirmation"

    async def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Resume the confirmed calls; the request itself is left as it is.

        Raises:
            InputValidationError: An answer does not match the stored request.
        """
        agent = llm_agent_of(invocation_context)
        resumed = _confirmation.resume_confirmed_calls(agent, invocation_context)
        async with aclosing(resumed) as events:
            async for event in events:
                yield event


request_processor = _RequestConfirmationLlmRequestProcessor()
