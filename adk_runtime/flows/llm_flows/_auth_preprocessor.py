"""``google.adk.auth.auth_preprocessor`` → here: resuming calls after credential answers.

``adk_runtime.auth.auth_preprocessor`` re-exports it: the step runs an agent's calls, and the
auth package sits below the agents.

The step the LLM flow takes before its first model call
(``adk_runtime.agents._auth.resume_authorized_calls``): when the user's latest message
answers ``adk_request_credential`` requests of this agent, each credential is pinned to the
stored request and kept for the invocation, and the calls that asked run again. Yields
their function-response event (and a new request when a tool asks again, which ends the
invocation). A toolset's request (its call id starts with
``agents._auth.TOOLSET_AUTH_CREDENTIAL_ID_PREFIX``) resumes no call: the toolset reads the
credential before its tools are listed.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING

from adk_runtime.agents import _auth
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows._base_llm_processor import BaseLlmRequestProcessor

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["request_processor"]


class _AuthLlmRequestProcessor(BaseLlmRequestProcessor):
    """Runs again the calls whose credentials the user's latest message brings.

    A request processor of the LLM flow (:mod:`adk_runtime.flows.llm_flows`); it does
    nothing for an agent that is not an ``LlmAgent``.
    """

    name = "auth"

    async def run_async(
        self, invocation_context: InvocationContext, llm_request: LlmRequest
    ) -> AsyncGenerator[Event, None]:
        """Store the answered credentials and resume their calls; the request is unchanged.

        Raises:
            InputValidationError: An answer carries no credential, or an OAuth2 answer's
                ``state`` differs from the request's.
        """
        from adk_runtime.agents.llm_agent import LlmAgent

        agent = invocation_context.agent
        if not isinstance(agent, LlmAgent):
            return
        resumed = _auth.resume_authorized_calls(agent, invocation_context)
        async with aclosing(resumed) as events:
            async for event in events:
                yield event


request_processor = _AuthLlmRequestProcessor()
