"""``google.adk.flows.llm_flows.interactions_processor`` → here.

adk_runtime's flow has no processor pipeline: the agent prepares every request itself
(``adk_runtime.agents._interactions``). The processor is kept for code that runs it by hand.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.agents import _interactions
from adk_runtime.agents.llm_agent import LlmAgent
from adk_runtime.flows.llm_flows._base_llm_processor import _Filler

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["InteractionsRequestProcessor", "request_processor"]


class InteractionsRequestProcessor(_Filler):
    """Names the interaction an Interactions API model's request continues."""

    name = "interactions"

    async def _fill(self, invocation_context: InvocationContext, llm_request: LlmRequest) -> None:
        """Fill ``previous_interaction_id`` and ``service_tier``.

        Only for an ``LlmAgent`` whose model is ``Gemini(use_interactions_api=True)``: the
        agent's newest interaction in the session (its branch and scope), and the run's
        serving tier. Other agents' requests are left as they are.
        """
        agent = invocation_context.agent
        if isinstance(agent, LlmAgent):
            _interactions.prepare_request(agent, invocation_context, llm_request)


request_processor = InteractionsRequestProcessor()
